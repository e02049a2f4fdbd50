package platform

import (
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/croql/croql/server"
)

// The platform's two-step upload, as its API clients and the SDK's helpers
// upload: POST /api/v2/storages with the file as the body (its name in
// the Crowdin-API-FileName header) answers a Storage {id, fileName}; then
// POST /projects/{projectId}/files {storageId, name} imports it as a
// source file (answering the File object), or POST
// /projects/{projectId}/translations/{languageId} {storageId, fileId} as
// translations of that file (answering {projectId, storageId, languageId,
// fileId}). The one-step form (the file in the import request itself)
// stays beside it.

// Storages belong to their owner: the organization of the token that
// added one and the projects that token reads. Only the same owner lists,
// reads, imports and deletes it; another token is answered as if it did
// not exist. Each owner keeps at most Config.MaxOwnerStorages storages
// and Config.MaxOwnerStorageBytes bytes (its oldest go first, never its
// newest), so one owner's flood evicts only its own; a storage is
// dropped storageLifetime after it was added (it is used once, right
// after). When the storages of all owners would hold more than
// Config.MaxStorageBytes, the adding owner's oldest go, and if that is
// not enough the storage is refused with 503 and Retry-After: never
// another owner's. A storage's bytes count against the body memory
// budget (bodymem.go) until it is dropped.
const storageLifetime = time.Hour

type storage struct {
	id    int64
	owner string
	name  string
	data  []byte
	added time.Time
	// held is the body memory the storage holds (bodymem.go), given back
	// when it is dropped.
	held int64
}

type storages struct {
	mu    sync.Mutex
	next  int64
	items []storage
	bytes int64
	// release gives back the body memory of a dropped storage (nil: none
	// to give back).
	release func(int64)
	// The caps (Config.MaxOwnerStorages, MaxOwnerStorageBytes,
	// MaxStorageBytes; New sets them).
	maxOwner           int
	maxOwnerBytes, max int64
}

// errStoragesFull is add's answer when the storages of all owners are
// at their bytes' bound.
var errStoragesFull = errors.New("storages full")

// expire drops the storages older than storageLifetime. s.mu is held.
func (s *storages) expire(now time.Time) {
	s.items = slices.DeleteFunc(s.items, func(st storage) bool {
		if now.Sub(st.added) >= storageLifetime {
			s.drop(st)
			return true
		}
		return false
	})
}

// dropOldest drops owner's oldest storage other than keep; it reports
// whether there was one. s.mu is held.
func (s *storages) dropOldest(owner string, keep int64) bool {
	for i, st := range s.items {
		if st.owner == owner && st.id != keep {
			s.drop(st)
			s.items = slices.Delete(s.items, i, i+1)
			return true
		}
	}
	return false
}

// drop counts st out of the storages' bytes and gives back its body
// memory; the caller removes it from s.items. s.mu is held.
func (s *storages) drop(st storage) {
	s.bytes -= int64(len(st.data))
	if s.release != nil {
		s.release(st.held)
	}
}

// add keeps data as owner's storage name; held is the body memory it
// holds, given back when it is dropped (at once when add fails).
func (s *storages) add(owner, name string, data []byte, held int64, now time.Time) (storage, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expire(now)
	s.next++
	st := storage{id: s.next, owner: owner, name: name, data: data, added: now, held: held}
	s.items = append(s.items, st)
	s.bytes += int64(len(data))
	for {
		n, b := 0, int64(0)
		for _, o := range s.items {
			if o.owner == owner {
				n++
				b += int64(len(o.data))
			}
		}
		if n <= s.maxOwner && b <= s.maxOwnerBytes && s.bytes <= s.max {
			return st, nil
		}
		if !s.dropOldest(owner, st.id) {
			break
		}
	}
	if s.bytes > s.max {
		s.remove(st.id)
		return storage{}, errStoragesFull
	}
	return st, nil
}

// get returns owner's storage id.
func (s *storages) get(id int64, owner string) (storage, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, st := range s.items {
		if st.id == id && st.owner == owner {
			return st, true
		}
	}
	return storage{}, false
}

// removeOwned removes owner's storage id; it reports whether there was
// one.
func (s *storages) removeOwned(id int64, owner string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, st := range s.items {
		if st.id == id && st.owner == owner {
			return s.remove(id)
		}
	}
	return false
}

// used drops storage id (it has been imported).
func (s *storages) used(id int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.remove(id)
}

// remove drops storage id. s.mu is held.
func (s *storages) remove(id int64) bool {
	for i, st := range s.items {
		if st.id == id {
			s.drop(st)
			s.items = slices.Delete(s.items, i, i+1)
			return true
		}
	}
	return false
}

// list returns owner's storages, oldest first.
func (s *storages) list(owner string) []storage {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []storage
	for _, st := range s.items {
		if st.owner == owner {
			out = append(out, st)
		}
	}
	return out
}

// storageOwner is the owner of the storages the request's token adds and
// sees: its organization and the projects it reads.
func (p *Platform) storageOwner(r *http.Request) string {
	g, _ := server.GrantOf(r)
	return p.subs.Organization(server.Bearer(r)) + "/" + g.Key()
}

func storageObject(st storage) map[string]any {
	return map[string]any{"id": st.id, "fileName": st.name}
}

// addStorage is POST /api/v2/storages.
func (p *Platform) addStorage(w http.ResponseWriter, r *http.Request) {
	name := r.Header.Get("Crowdin-API-FileName")
	if un, err := urlUnescape(name); err == nil {
		name = un
	}
	if name == "" || strings.ContainsAny(name, "/\\") {
		server.WriteError(w, http.StatusBadRequest, "The storage needs a file name without slashes in the Crowdin-API-FileName header")
		return
	}
	data, ierr := p.readBody(r, http.MaxBytesReader(w, r.Body, p.cfg.MaxFileBytes+1), r.ContentLength)
	if ierr != nil {
		writeFailure(w, ierr)
		return
	}
	st, err := p.storages.add(p.storageOwner(r), name, data, takeBody(r), p.cfg.Now())
	if err != nil {
		w.Header().Set("Retry-After", "60")
		server.WriteError(w, http.StatusServiceUnavailable, fmt.Sprintf("The storages of all tokens would pass their bound of %d bytes (--max-storage-bytes): try again once some are imported or deleted", p.cfg.MaxStorageBytes))
		return
	}
	server.WriteJSON(w, http.StatusCreated, map[string]any{"data": storageObject(st)})
}

func (p *Platform) getStorage(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(r.PathValue("storageId"), 10, 64)
	st, ok := p.storages.get(id, p.storageOwner(r))
	if err != nil || !ok {
		server.WriteError(w, http.StatusNotFound, "Storage Not Found")
		return
	}
	server.WriteJSON(w, http.StatusOK, map[string]any{"data": storageObject(st)})
}

func (p *Platform) deleteStorage(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(r.PathValue("storageId"), 10, 64)
	if err != nil || !p.storages.removeOwned(id, p.storageOwner(r)) {
		server.WriteError(w, http.StatusNotFound, "Storage Not Found")
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (p *Platform) listStorages(w http.ResponseWriter, r *http.Request) {
	limit, offset := 25, 0
	q := r.URL.Query()
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 500 {
			server.WriteError(w, http.StatusBadRequest, "limit must be from 1 to 500")
			return
		}
		limit = n
	}
	if v := q.Get("offset"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			server.WriteError(w, http.StatusBadRequest, "offset must be an integer, 0 or more")
			return
		}
		offset = n
	}
	all := p.storages.list(p.storageOwner(r))
	data := []any{}
	for i := offset; i < len(all) && i < offset+limit; i++ {
		data = append(data, map[string]any{"data": storageObject(all[i])})
	}
	server.WriteJSON(w, http.StatusOK, map[string]any{"data": data, "pagination": map[string]any{"offset": offset, "limit": limit}})
}

// urlUnescape reads a percent-encoded header value (the JS client
// encodes the file name).
func urlUnescape(s string) (string, error) {
	if !strings.Contains(s, "%") {
		return s, nil
	}
	return url.PathUnescape(s)
}

// isJSON reports whether r's body is JSON (the two-step form).
func isJSON(r *http.Request) bool {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return mt == "application/json"
}

// badBody is the message of a two-step request whose body is not JSON.
const badBody = `The body must be a JSON object such as {"storageId":1,"name":"app.json"}`

// storageOf is the storage of a two-step request's storageId; an unknown
// one, or another owner's, is answered 400.
func (p *Platform) storageOf(w http.ResponseWriter, r *http.Request, id int64) (storage, bool) {
	st, ok := p.storages.get(id, p.storageOwner(r))
	if !ok {
		server.WriteError(w, http.StatusBadRequest, "storageId: no storage "+strconv.FormatInt(id, 10)+" (add the file with POST /api/v2/storages first)")
	}
	return st, ok
}

// readJSON decodes a small JSON body into v.
func readJSON(w http.ResponseWriter, r *http.Request, v any) bool {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20))
	if err := dec.Decode(v); err != nil {
		server.WriteError(w, http.StatusBadRequest, badBody)
		return false
	}
	return true
}

// filesHandler is POST /projects/{projectId}/files: the two-step form
// (a JSON body naming a storage) or the one-step form.
func (p *Platform) filesHandler(s *server.Server) http.Handler {
	oneStep := p.importHandler(s, false)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// A raw body named by Crowdin-API-FileName is the one-step form,
		// whatever its type (a JSON source file is application/json too).
		if !isJSON(r) || r.Header.Get("Crowdin-API-FileName") != "" {
			oneStep.ServeHTTP(w, r)
			return
		}
		proj, ok := p.projectOf(s, r)
		if !ok {
			server.WriteError(w, http.StatusNotFound, "Project Not Found")
			return
		}
		var req createFileRequest
		if !readJSON(w, r, &req) {
			return
		}
		st, ok := p.storageOf(w, r, req.StorageID)
		if !ok {
			return
		}
		name := req.Name
		if name == "" {
			name = st.name
		}
		opts, ierr := req.options(p.cfg.Parsers, name, st.data)
		if ierr != nil {
			writeFailure(w, ierr)
			return
		}
		p.importStorage(w, r, s, proj, st, name, opts, 0, http.StatusCreated)
	})
}

// uploadTranslation is POST /projects/{projectId}/translations/{languageId}
// {storageId, fileId}.
func (p *Platform) uploadTranslation(s *server.Server) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proj, ok := p.projectOf(s, r)
		if !ok {
			server.WriteError(w, http.StatusNotFound, "Project Not Found")
			return
		}
		lang := r.PathValue("languageId")
		if !proj.HasLanguage(lang) {
			server.WriteError(w, http.StatusBadRequest, "languageId \""+lang+"\" is not a target language of the project ("+strings.Join(proj.TargetLanguages, ", ")+")")
			return
		}
		var req struct {
			StorageID int64 `json:"storageId"`
			FileID    int64 `json:"fileId"`
		}
		if !readJSON(w, r, &req) {
			return
		}
		st, ok := p.storageOf(w, r, req.StorageID)
		if !ok {
			return
		}
		f, err := s.FileObject(r.Context(), proj, req.FileID)
		if err != nil {
			server.WriteError(w, http.StatusInternalServerError, "The project's files could not be read")
			return
		}
		if f == nil {
			server.WriteError(w, http.StatusBadRequest, "fileId: no file "+strconv.FormatInt(req.FileID, 10)+" in the project")
			return
		}
		name, _ := f["name"].(string)
		release, ok := p.importSlot(w, r, int64(len(st.data)))
		if !ok {
			return
		}
		defer release()
		if _, err := p.ImportWith(r.Context(), s.Storage(), proj, p.publicURL(r), name, st.data, lang,
			ImportOptions{Organization: p.subs.Organization(server.Bearer(r))}); err != nil {
			p.writeImportError(w, proj, name, err)
			return
		}
		p.storages.used(st.id)
		server.WriteJSON(w, http.StatusOK, map[string]any{"data": map[string]any{
			"projectId": proj.ID, "storageId": st.id, "languageId": lang, "fileId": req.FileID}})
	})
}

func (p *Platform) projectOf(s *server.Server, r *http.Request) (*server.Project, bool) {
	id, err := strconv.ParseInt(r.PathValue("projectId"), 10, 64)
	g, _ := server.GrantOf(r)
	proj, ok := s.Storage().Project(id)
	return proj, err == nil && ok && g.Reads(id)
}

func (p *Platform) writeImportError(w http.ResponseWriter, proj *server.Project, name string, err error) {
	writeFailure(w, p.importFailure(proj.ID, name, err))
}
