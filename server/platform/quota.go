package platform

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/croql/croql/app/postimport"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/server"
	"github.com/croql/croql/store"
)

// Defaults of the upload quotas (Config fields of the same names).
const (
	// DefaultMaxProjectBytes bounds the text a project stores after an
	// upload: the bytes of its strings' identifiers, contexts, texts and
	// plural forms, its translations, label titles and file names.
	DefaultMaxProjectBytes = 1 << 30
	// DefaultMaxFileStrings bounds the strings of one uploaded file: an
	// upload's memory grows with its strings (about 500 bytes each at
	// the peak, docs/app-contract.md), not with its bytes.
	DefaultMaxFileStrings = 500_000
	// DefaultMaxConcurrentUploads bounds the uploads parsed, sent to
	// apps and stored at once; one more waits up to 2 s for a slot, then
	// is answered 429.
	DefaultMaxConcurrentUploads = 4
	// DefaultMaxOwnerStorages bounds the storages of the two-step upload
	// one owner keeps (storages.go): one more drops the owner's oldest.
	DefaultMaxOwnerStorages = 16
	// DefaultMaxOwnerStorageBytes bounds the bytes of one owner's
	// storages: one more drops the owner's oldest.
	DefaultMaxOwnerStorageBytes = 32 << 20
	// DefaultMaxStorageBytes bounds the bytes of the storages of all
	// owners together: past it the adder's oldest go, then the storage is
	// refused with 503. Storages count against the body memory budget
	// (server.DefaultMaxBodyMemory, 192 MiB): with them full, a file of
	// the per-file quota can still be uploaded and imported in one step
	// (its body and importFactor times it: 128 MiB).
	DefaultMaxStorageBytes = 64 << 20
)

// uploadWait is how long an upload waits for a slot of the concurrent
// uploads' quota before its 429: uploads take milliseconds to seconds, so
// a short burst queues instead of failing.
const uploadWait = 2 * time.Second

// importFactor is the working memory an import takes per byte of its
// file, beyond the file itself (parsing, the strings, the job and its
// answer), drawn from the body memory budget: 3 bytes per byte of the
// file (a 30 MB key-value JSON file of 500,000 strings peaks at about 4
// times its size, the file included).
const importFactor = 3

// uploadSlot is importSlot for a one-step upload: its file is the body
// the request holds.
func (p *Platform) uploadSlot(w http.ResponseWriter, r *http.Request) (release func(), ok bool) {
	var held int64
	if hold, _ := r.Context().Value(bodyHoldKey{}).(*bodyHold); hold != nil {
		held = hold.n
	}
	return p.importSlot(w, r, held)
}

// importSlot takes the working memory of an import of a file of size
// bytes from the body memory budget and one of the concurrent uploads'
// slots, each waiting up to uploadWait; without them it answers 503 (the
// memory) or 429 (the slot) naming the limit and returns false. The
// caller calls release.
func (p *Platform) importSlot(w http.ResponseWriter, r *http.Request, size int64) (release func(), ok bool) {
	work := importFactor * size
	if err := p.bodies.Reserve(r.Context(), work); err != nil {
		w.Header().Set("Retry-After", "1")
		server.WriteError(w, http.StatusServiceUnavailable, err.Error())
		return nil, false
	}
	t := time.NewTimer(uploadWait)
	defer t.Stop()
	select {
	case p.uploads <- struct{}{}:
		return func() { <-p.uploads; p.bodies.Release(work) }, true
	case <-r.Context().Done():
	case <-t.C:
	}
	p.bodies.Release(work)
	w.Header().Set("Retry-After", "1")
	server.WriteError(w, http.StatusTooManyRequests, fmt.Sprintf("The concurrent uploads quota (%d uploads at once, --max-concurrent-uploads) is in use; try again", cap(p.uploads)))
	return nil, false
}

// unavailable is the answer to an import whose database could not be
// reached, was lost while it ran, or cancelled the write for a reason
// that passes (a deadlock, a serialization failure): 503 with
// Retry-After, as a list answers; nil for any other error.
func unavailable(err error) *importError {
	switch c, _ := store.Classify(err); c {
	case store.Unavailable:
		return &importError{status: http.StatusServiceUnavailable, retryAfter: 5,
			msg: "The database is unavailable (nothing was stored); try again later"}
	case store.Retry:
		return &importError{status: http.StatusServiceUnavailable, retryAfter: 1,
			msg: "The database cancelled the import (nothing was stored); try again"}
	}
	return nil
}

// fileTooLarge is the answer to an upload over the per-file quota.
func fileTooLarge(max int64) *importError {
	return failf(http.StatusRequestEntityTooLarge, "The file is larger than the per-file quota of %d bytes (--max-file-bytes)", max)
}

// tooManyStrings is the answer to an upload (or a module's answer to
// it) of more strings than the per-file strings quota.
func tooManyStrings(max int) *importError {
	return failf(http.StatusRequestEntityTooLarge, "The file holds more than %d strings, over the per-file quota of %d strings (--max-file-strings); nothing was stored", max, max)
}

// checkProjectBytes fails the write transaction tx with a 413 naming the
// per-project quota when the project's stored texts (the identifiers,
// contexts, texts and plural forms of its source strings, its
// translations, label titles and file names, titles and contexts) hold
// more than w.maxProjectBytes bytes: the upload is then not stored. 0 or
// less: no quota.
func (w *writer) checkProjectBytes(ctx context.Context, tx *sql.Tx, t *tables) error {
	if w.maxProjectBytes <= 0 {
		return nil
	}
	cols, err := t.textColumns()
	if err != nil {
		return err
	}
	var total int64
	for _, c := range cols {
		sums := make([]string, len(c.columns))
		for i, col := range c.columns {
			sums[i] = "SUM(" + w.d.ByteLength(w.d.Quote(col)) + ")"
		}
		n := make([]sql.NullInt64, len(sums))
		dest := make([]any, len(n))
		for i := range n {
			dest[i] = &n[i]
		}
		q := "SELECT " + strings.Join(sums, ", ") + " FROM " + w.d.Quote(c.table)
		if err := tx.QueryRowContext(ctx, q).Scan(dest...); err != nil {
			return fmt.Errorf("platform: the project's size: %w", err)
		}
		for _, x := range n {
			total += x.Int64
		}
	}
	if total > w.maxProjectBytes {
		return failf(http.StatusRequestEntityTooLarge, "The project would hold %s bytes of text (identifiers, contexts, texts, translations, labels and file names), over the per-project quota of %s bytes (--max-project-bytes); nothing was stored",
			strconv.FormatInt(total, 10), strconv.FormatInt(w.maxProjectBytes, 10))
	}
	return nil
}

// textColumns are the text columns of a project that count against the
// per-project quota, by table.
func (t *tables) textColumns() ([]textColumns, error) {
	str, err := fieldColumns(t.Str, func(s *schema.SourceString) []any {
		return []any{&s.Identifier, &s.Context, &s.Text, &s.PluralForms}
	})
	if err != nil {
		return nil, err
	}
	tr, err := fieldColumns(t.Tr, func(tr *schema.Translation) []any { return []any{&tr.Text} })
	if err != nil {
		return nil, err
	}
	return []textColumns{
		{t.Str.Table(), str},
		{t.Tr.Table(), tr},
		{t.Label.Table(), []string{t.LabelTitle}},
		{t.File.Table(), []string{t.FileName, t.FileTitle, t.FileContext}},
	}, nil
}

// textColumns are text columns of one table.
type textColumns struct {
	table   string
	columns []string
}

// fieldColumns are the columns of the Go fields fields points to.
func fieldColumns[T any](r *store.Rows[T], fields func(*T) []any) ([]string, error) {
	var cols []string
	for i := range len(fields(new(T))) {
		c, err := r.Column(func(v *T) any { return fields(v)[i] })
		if err != nil {
			return nil, err
		}
		cols = append(cols, c)
	}
	return cols, nil
}

// fileBytesTooLarge is the answer to an upload whose strings would store
// more than the per-file quota.
func fileBytesTooLarge(n, max int64, what string) *importError {
	return failf(http.StatusRequestEntityTooLarge, "The file's strings would store %s bytes or more (%s), over the per-file quota of %d bytes (--max-file-bytes); nothing was stored",
		strconv.FormatInt(n, 10), what, max)
}

// stringBytes are the bytes an uploaded string stores: its identifier,
// context, text (every plural form, and the forms again as JSON), labels
// and translations.
func stringBytes(s *postimport.String) int64 {
	n := int64(len(s.Identifier) + len(s.Context))
	n += textBytes(s.Text)
	for _, l := range s.Labels {
		n += int64(len(l))
	}
	for _, tr := range s.Translations {
		n += textBytes(tr.Text)
	}
	return n
}

// textBytes bounds the bytes a text stores: a plain text's, or twice its
// plural forms' (the "other" text and the forms as JSON; escaping can
// make the JSON longer, which the per-project quota counts).
func textBytes(t postimport.Text) int64 {
	if t.Plural == nil {
		return int64(len(t.Plain))
	}
	var n int64
	for k, v := range t.Plural {
		n += int64(len(k) + 2*len(v))
	}
	return n
}

// parsedTranslationBytes are the bytes the translations of a translation
// upload's parsed strings store.
func parsedTranslationBytes(parsed []Parsed) int64 {
	var n int64
	for i := range parsed {
		p := parsed[i].translation()
		if p == nil {
			continue
		}
		if p.Plural == nil {
			n += int64(len(p.Text))
			continue
		}
		for k, v := range p.Plural {
			n += int64(len(k) + 2*len(v))
		}
	}
	return n
}

// checkUploadBytes refuses, before anything is written, an upload whose
// strings out would store more than max bytes (max <= 0: no quota). A
// translation upload (language set) stores the translations into
// language only; without a module's answer (out nil) those of parsed.
func checkUploadBytes(out uploadStrings, parsed []Parsed, language string, max int64) error {
	if max <= 0 {
		return nil
	}
	var n int64
	switch {
	case language != "" && out == nil:
		n = parsedTranslationBytes(parsed)
	case language != "":
		for i := range out.Len() {
			s := out.At(i)
			if tr, ok := s.Translations[language]; ok {
				n += textBytes(tr.Text)
			}
			if n > max {
				break
			}
		}
	default:
		for i := range out.Len() {
			s := out.At(i)
			if n += stringBytes(&s); n > max {
				break
			}
		}
	}
	if n > max {
		return fileBytesTooLarge(n, max, "identifiers, contexts, texts, labels and translations")
	}
	return nil
}
