package platform

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/croql/croql/schema"
	"github.com/croql/croql/server"
	"github.com/croql/croql/store"
)

// Defaults of the upload quotas (Config fields of the same names).
const (
	// DefaultMaxProjectBytes bounds the text a project stores: the bytes
	// of its source strings' and translations' texts after an upload.
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
// per-project quota when the project's texts (source strings and
// translations) hold more than w.maxProjectBytes bytes: the upload is then
// not stored. 0 or less: no quota.
func (w *writer) checkProjectBytes(ctx context.Context, tx *sql.Tx, t *tables) error {
	if w.maxProjectBytes <= 0 {
		return nil
	}
	strText, err := t.Str.Column(func(s *schema.SourceString) any { return &s.Text })
	if err != nil {
		return err
	}
	trText, err := t.Tr.Column(func(tr *schema.Translation) any { return &tr.Text })
	if err != nil {
		return err
	}
	var total int64
	for _, x := range [][2]string{{t.Str.Table(), strText}, {t.Tr.Table(), trText}} {
		var n sql.NullInt64
		q := "SELECT SUM(" + w.d.ByteLength(w.d.Quote(x[1])) + ") FROM " + w.d.Quote(x[0])
		if err := tx.QueryRowContext(ctx, q).Scan(&n); err != nil {
			return fmt.Errorf("platform: the project's size: %w", err)
		}
		total += n.Int64
	}
	if total > w.maxProjectBytes {
		return failf(http.StatusRequestEntityTooLarge, "The project would hold %s bytes of text, over the per-project quota of %s bytes (--max-project-bytes); nothing was stored",
			strconv.FormatInt(total, 10), strconv.FormatInt(w.maxProjectBytes, 10))
	}
	return nil
}
