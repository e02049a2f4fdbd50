package platform

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/croql/croql/server"
	"github.com/croql/croql/store"
)

// patchOp is one operation of the platform's JSON Patch (editFile).
type patchOp struct {
	Op    string          `json:"op"`
	Path  string          `json:"path"`
	Value json.RawMessage `json:"value"`
}

// fileEdit is what an editFile writes: the file's title (nil: none) and
// context, each when set.
type fileEdit struct {
	setTitle, setContext bool
	title                *string
	context              string
}

// read checks the operations of an editFile. croql serve keeps a file's
// title and context: replace or add writes them, remove clears them;
// every other path (name, priority, excludedTargetLanguages, import and
// export options, labels, fields) and op is the platform's 400 naming
// it, never dropped.
func (e *fileEdit) read(ops []patchOp) *importError {
	if len(ops) == 0 {
		return invalidf("body", "isEmpty", "body: a JSON Patch array of at least one operation")
	}
	for i, op := range ops {
		key := strings.TrimPrefix(op.Path, "/")
		if key != "title" && key != "context" {
			if key == "" {
				key = strconv.Itoa(i)
			}
			return unsupported(key, "a file's "+key+" (an edit may change /title and /context)")
		}
		var v *string
		switch op.Op {
		case "replace", "add":
			if json.Unmarshal(op.Value, &v) != nil || v == nil {
				return invalidf(key, "notString", "%s: the value must be a string", key)
			}
		case "remove":
		default:
			return invalidf(key, "notInArray", "%s: op must be replace, add or remove", key)
		}
		if key == "title" {
			e.setTitle, e.title = true, v
		} else {
			e.setContext, e.context = true, ""
			if v != nil {
				e.context = *v
			}
		}
	}
	return nil
}

// editFile is PATCH /projects/{projectId}/files/{fileId}: the platform's
// editFile of the fields croql serve keeps (fileEdit.read); the answer is
// the File as it is now.
func (p *Platform) editFile(s *server.Server) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proj, id, name, ok := p.fileOf(s, w, r)
		if !ok {
			return
		}
		var ops []patchOp
		if !readJSON(w, r, &ops) {
			return
		}
		var e fileEdit
		if ie := e.read(ops); ie != nil {
			writeFailure(w, ie)
			return
		}
		release, ok := p.uploadSlot(w, r)
		if !ok {
			return
		}
		defer release()
		if err := newWriter(proj).editFile(r.Context(), s.Storage(), id, e); err != nil {
			p.writeImportError(w, proj, name, err)
			return
		}
		o, err := s.FileObject(r.Context(), proj, id)
		if err != nil || o == nil {
			p.log.Error("croql serve: reading an edited file", "project", proj.ID, "file", name, "err", err)
			server.WriteError(w, http.StatusInternalServerError, "The file was edited but could not be read back")
			return
		}
		server.WriteJSON(w, http.StatusOK, map[string]any{"data": o})
	})
}

// editFile writes e to file fileID in one transaction.
func (w *writer) editFile(ctx context.Context, st *server.Storage, fileID int64, e fileEdit) error {
	t, err := w.tables()
	if err != nil {
		return err
	}
	var cols []string
	var args []any
	if e.setTitle {
		var title any // NULL for none
		if e.title != nil {
			title = *e.title
		}
		cols, args = append(cols, t.FileTitle), append(args, title)
	}
	if e.setContext {
		cols, args = append(cols, t.FileContext), append(args, e.context)
	}
	args = append(args, fileID)
	err = st.WriteTx(ctx, w.proj, func(tx *sql.Tx) error {
		return w.exec(ctx, tx, store.UpdateSQL(w.d, t.File.Table(), cols, t.File.Key(), 1), args...)
	})
	if err != nil {
		return fmt.Errorf("platform: editing the file (nothing was changed): %w", err)
	}
	return nil
}
