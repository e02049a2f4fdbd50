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

// The platform's file endpoints besides the upload: update (or restore),
// revisions and delete. A file is its row and its strings; croql serve
// keeps no earlier revisions of a file, so a restore is refused.

// createFileRequest is the body of the platform's createFile (the
// two-step form of POST /projects/{projectId}/files). Every field the
// official clients send is read: those croql serve keeps are honoured,
// the others refused with the platform's validation error.
type createFileRequest struct {
	StorageID               int64           `json:"storageId"`
	Name                    string          `json:"name"`
	BranchID                *int64          `json:"branchId"`
	DirectoryID             *int64          `json:"directoryId"`
	Title                   *string         `json:"title"`
	Context                 *string         `json:"context"`
	Type                    string          `json:"type"`
	ParserVersion           *int64          `json:"parserVersion"`
	ImportOptions           json.RawMessage `json:"importOptions"`
	ExportOptions           json.RawMessage `json:"exportOptions"`
	ExcludedTargetLanguages []string        `json:"excludedTargetLanguages"`
	AttachLabelIDs          []int64         `json:"attachLabelIds"`
	Fields                  json.RawMessage `json:"fields"`
}

// given reports whether a JSON value was sent and is not null or empty.
func given(raw json.RawMessage) bool {
	switch strings.TrimSpace(string(raw)) {
	case "", "null", "{}", "[]":
		return false
	}
	return true
}

// unsupported is the 400 of a parameter croql serve does not keep.
func unsupported(key, what string) *importError {
	return invalidf(key, "notSupported", "%s: croql serve does not keep %s; send the request without it", key, what)
}

// options checks the request and returns the upload's options for the
// file name, whose content is data.
func (req *createFileRequest) options(parsers []Parser, name string, data []byte) (ImportOptions, *importError) {
	opts := ImportOptions{Create: true, Title: req.Title}
	if req.Context != nil {
		opts.Context = *req.Context
	}
	switch {
	case strings.ContainsAny(name, "/\\"):
		return opts, invalidf("name", "notValid", "name: a file name without slashes")
	case req.BranchID != nil && *req.BranchID != 0:
		return opts, unsupported("branchId", "branches (files are added at the project's root)")
	case req.DirectoryID != nil && *req.DirectoryID != 0:
		return opts, unsupported("directoryId", "directories (files are added at the project's root)")
	case len(req.ExcludedTargetLanguages) > 0:
		return opts, unsupported("excludedTargetLanguages", "languages excluded by file (every file is translated into every target language)")
	case len(req.AttachLabelIDs) > 0:
		return opts, unsupported("attachLabelIds", "labels attached by file")
	case req.ParserVersion != nil:
		return opts, unsupported("parserVersion", "parser versions")
	case given(req.ImportOptions):
		return opts, unsupported("importOptions", "import options")
	case given(req.ExportOptions):
		return opts, unsupported("exportOptions", "export options")
	case given(req.Fields):
		return opts, unsupported("fields", "custom fields of files")
	}
	if req.Type != "" && req.Type != "auto" {
		parser, err := parserFor(parsers, name, data)
		if err != nil {
			return opts, invalidf("type", "notSupported", "type: %v", err)
		}
		if parser.Type() != req.Type {
			return opts, invalidf("type", "notSupported", "type: croql serve reads %s as %s, not %s (send type auto or %s)", name, parser.Type(), req.Type, parser.Type())
		}
	}
	return opts, nil
}

// updateFileRequest is the body of the platform's updateOrRestoreFile:
// ReplaceFileFromStorageRequest or RestoreFile.
type updateFileRequest struct {
	StorageID              *int64          `json:"storageId"`
	RevisionID             *int64          `json:"revisionId"`
	Name                   *string         `json:"name"`
	UpdateOption           string          `json:"updateOption"`
	ImportOptions          json.RawMessage `json:"importOptions"`
	ExportOptions          json.RawMessage `json:"exportOptions"`
	AttachLabelIDs         []int64         `json:"attachLabelIds"`
	DetachLabelIDs         []int64         `json:"detachLabelIds"`
	ReplaceModifiedContext *bool           `json:"replaceModifiedContext"`
}

// options checks the request for the file named name.
func (req *updateFileRequest) options(name string) (ImportOptions, *importError) {
	var opts ImportOptions
	switch {
	case req.RevisionID != nil:
		return opts, unsupported("revisionId", "earlier revisions of a file, so none can be restored")
	case req.StorageID == nil:
		return opts, invalidf("storageId", "isEmpty", "storageId: the storage of the file's new content (POST /api/v2/storages)")
	case req.Name != nil && *req.Name != name:
		return opts, unsupported("name", "renamed files (the file is "+name+")")
	case len(req.AttachLabelIDs) > 0:
		return opts, unsupported("attachLabelIds", "labels attached by file")
	case len(req.DetachLabelIDs) > 0:
		return opts, unsupported("detachLabelIds", "labels attached by file")
	case req.ReplaceModifiedContext != nil && *req.ReplaceModifiedContext:
		return opts, unsupported("replaceModifiedContext", "contexts edited apart from the file (an update writes the file's contexts)")
	case given(req.ImportOptions):
		return opts, unsupported("importOptions", "import options")
	case given(req.ExportOptions):
		return opts, unsupported("exportOptions", "export options")
	}
	o, err := ParseUpdateOption(req.UpdateOption)
	if err != nil {
		return opts, invalidf("updateOption", "notInArray", "%v", err)
	}
	opts.UpdateOption = o
	return opts, nil
}

// fileOf is the project and the file of a request's projectId and fileId
// path values; false when it answered 404.
func (p *Platform) fileOf(s *server.Server, w http.ResponseWriter, r *http.Request) (*server.Project, int64, string, bool) {
	proj, ok := p.projectOf(s, r)
	if !ok {
		server.WriteError(w, http.StatusNotFound, "Project Not Found")
		return nil, 0, "", false
	}
	id, err := strconv.ParseInt(r.PathValue("fileId"), 10, 64)
	var f map[string]any
	if err == nil {
		if f, err = s.FileObject(r.Context(), proj, id); err != nil {
			p.log.Error("croql serve: reading a file", "project", proj.ID, "file", id, "err", err)
			server.WriteError(w, http.StatusInternalServerError, "The project's files could not be read")
			return nil, 0, "", false
		}
	}
	name, _ := f["name"].(string)
	if f == nil || name == "" {
		server.WriteError(w, http.StatusNotFound, "File Not Found")
		return nil, 0, "", false
	}
	return proj, id, name, true
}

// updateFile is PUT /projects/{projectId}/files/{fileId}: the file's
// strings replaced by a storage's content as a source upload updates
// them (updateOption says what becomes of the translations and
// approvals of changed strings); the answer is the File.
func (p *Platform) updateFile(s *server.Server) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proj, id, name, ok := p.fileOf(s, w, r)
		if !ok {
			return
		}
		var req updateFileRequest
		if !readJSON(w, r, &req) {
			return
		}
		opts, ierr := req.options(name)
		if ierr != nil {
			writeFailure(w, ierr)
			return
		}
		st, ok := p.storageOf(w, r, *req.StorageID)
		if !ok {
			return
		}
		p.importStorage(w, r, s, proj, st, name, opts, id, http.StatusOK)
	})
}

// deleteFile is DELETE /projects/{projectId}/files/{fileId}: the file
// and its strings, with everything that hangs on them, go in one
// transaction; the answer is 204.
func (p *Platform) deleteFile(s *server.Server) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proj, id, name, ok := p.fileOf(s, w, r)
		if !ok {
			return
		}
		release, ok := p.uploadSlot(w, r)
		if !ok {
			return
		}
		defer release()
		if err := newWriter(proj).deleteFile(r.Context(), s.Storage(), id, name); err != nil {
			p.writeImportError(w, proj, name, err)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
}

// fileRevisions is GET /projects/{projectId}/files/{fileId}/revisions:
// croql serve keeps no revisions, and says so with the platform's 400
// rather than answer a list that is not the file's history.
func (p *Platform) fileRevisions(s *server.Server) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, _, _, ok := p.fileOf(s, w, r); !ok {
			return
		}
		writeFailure(w, unsupported("fileId", "file revisions"))
	})
}

// deleteFile removes file fileID (named name) and its strings.
func (w *writer) deleteFile(ctx context.Context, st *server.Storage, fileID int64, name string) error {
	t, err := w.tables()
	if err != nil {
		return err
	}
	err = st.WriteTx(ctx, w.proj, func(tx *sql.Tx) error {
		if err := w.lockFile(ctx, tx, t, fileID, name, true); err != nil {
			return err
		}
		strs, err := w.readStrings(ctx, tx, t, fileID, name, false)
		if err != nil {
			return err
		}
		ids := make([]int64, len(strs))
		for i := range strs {
			ids[i] = strs[i].ID
		}
		if err := w.deleteStrings(ctx, tx, t, ids); err != nil {
			return err
		}
		// Their translations went: how many strings each language's
		// translations are filed under, counted again.
		if err := store.RefreshFiledCounts(ctx, tx, w.d, w.m); err != nil {
			return err
		}
		return w.exec(ctx, tx, store.DeleteSQL(w.d, t.File.Table(), t.File.Key(), 1), fileID)
	})
	if err != nil {
		return fmt.Errorf("platform: deleting the file (nothing was deleted): %w", err)
	}
	return nil
}

// importStorage imports the file of storage st as name into proj (in an
// upload slot), drops the storage, and answers the file as it is now
// stored (file id, or the one the import made when 0), with status; a
// failure is answered as the import's error.
func (p *Platform) importStorage(w http.ResponseWriter, r *http.Request, s *server.Server, proj *server.Project, st storage, name string, opts ImportOptions, id int64, status int) {
	opts.Organization = p.subs.Organization(server.Bearer(r))
	release, ok := p.importSlot(w, r, int64(len(st.data)))
	if !ok {
		return
	}
	defer release()
	res, err := p.ImportWith(r.Context(), s.Storage(), proj, p.publicURL(r), name, st.data, "", opts)
	if err != nil {
		p.writeImportError(w, proj, name, err)
		return
	}
	p.storages.used(st.id)
	if id == 0 {
		id = res.FileID
	}
	o, err := s.FileObject(r.Context(), proj, id)
	if err != nil || o == nil {
		p.log.Error("croql serve: reading an imported file", "project", proj.ID, "file", name, "err", err)
		server.WriteError(w, http.StatusInternalServerError, "The file was stored but could not be read back; the server's log has the details")
		return
	}
	server.WriteJSON(w, status, map[string]any{"data": o})
}
