package platform

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/croql/croql/app/postimport"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/server"
)

func randomID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// upload is a file posted to an import endpoint.
type upload struct {
	name     string
	data     []byte
	language string // translation uploads
	option   string // updateOption of a source upload
}

// UpdateOption says what a file update does to the translations and
// approvals of the strings whose source text changed: the updateOption of
// the platform's "Update or Restore File" request, with its default
// ClearTranslationsAndApprovals. Strings whose text is unchanged always
// keep theirs.
type UpdateOption string

// The update options of the platform's API.
const (
	ClearTranslationsAndApprovals UpdateOption = "clear_translations_and_approvals"
	KeepTranslations              UpdateOption = "keep_translations"
	KeepTranslationsAndApprovals  UpdateOption = "keep_translations_and_approvals"
)

// ParseUpdateOption reads an updateOption; empty is the default
// ClearTranslationsAndApprovals.
func ParseUpdateOption(s string) (UpdateOption, error) {
	switch o := UpdateOption(s); o {
	case "":
		return ClearTranslationsAndApprovals, nil
	case ClearTranslationsAndApprovals, KeepTranslations, KeepTranslationsAndApprovals:
		return o, nil
	}
	return "", fmt.Errorf("updateOption %q is none of %s, %s, %s", s, ClearTranslationsAndApprovals, KeepTranslations, KeepTranslationsAndApprovals)
}

// ImportOptions are the options of an upload.
type ImportOptions struct {
	// UpdateOption applies when a source upload updates an existing
	// file (ClearTranslationsAndApprovals when empty).
	UpdateOption UpdateOption
	// Organization is the organization the upload acts for (the upload
	// token's, Subscriptions.Organization; DefaultOrganization when
	// empty): the organization of the job, of the app's installation and
	// of its JWT.
	Organization string
	// Create refuses a source upload whose name is a file's already (the
	// platform's createFile): 400, key name, code notUnique.
	Create bool
	// Title and Context are those of a file the upload creates.
	Title   *string
	Context string
}

// FileUpdate counts what a source upload did to an existing file's
// strings.
type FileUpdate struct {
	// Option is the update option applied.
	Option UpdateOption `json:"updateOption"`
	// Added strings are new, with new ids.
	Added int `json:"added"`
	// Updated strings matched a stored string whose source text changed:
	// they kept their ids; their translations went as Option says.
	Updated int `json:"updated"`
	// Unchanged strings matched a stored string with the same source
	// text: they kept their ids and translations (attributes such as
	// context, max length or labels may have changed).
	Unchanged int `json:"unchanged"`
	// Deleted stored strings were not in the upload: removed with their
	// translations, votes, approvals, comments and summaries.
	Deleted int `json:"deleted"`
}

// ImportResult is the data of a successful import answer.
type ImportResult struct {
	FileID int64  `json:"fileId"`
	Name   string `json:"name"`
	Type   string `json:"type"`
	// Language is the target language of a translation upload.
	Language string `json:"languageId,omitempty"`
	// Strings is the number of strings (source upload) or translated
	// strings (translation upload) stored.
	Strings int `json:"strings"`
	// Module is "app/key" of the post-import module that processed the
	// file, empty when none matched.
	Module string `json:"module,omitempty"`
	// NotModified is set when the module answered 304 (the parsed strings
	// were stored as they came).
	NotModified bool `json:"notModified,omitempty"`
	// Update is set when a source upload updated an existing file.
	Update *FileUpdate `json:"update,omitempty"`
}

// importError is a failed import: the status of the upload's answer and
// the message shown to the user.
type importError struct {
	status int
	msg    string
	// key and code make a 400 the platform's validation error: the
	// request parameter and what is wrong with it.
	key, code string
	// link is the subscribe link of a 402.
	link string
	// retryAfter, when positive, is the Retry-After of a 503 (seconds).
	retryAfter int
}

func (e *importError) Error() string { return e.msg }

func failf(status int, format string, args ...any) *importError {
	return &importError{status: status, msg: fmt.Sprintf(format, args...)}
}

// invalidf is a 400 about the request parameter key, answered as the
// platform's validation error with code.
func invalidf(key, code, format string, args ...any) *importError {
	return &importError{status: http.StatusBadRequest, msg: fmt.Sprintf(format, args...), key: key, code: code}
}

// writeFailure answers a failed request: the platform's validation error
// for a parameter's 400, else its status and message.
func writeFailure(w http.ResponseWriter, ie *importError) {
	if ie.retryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(ie.retryAfter))
	}
	switch {
	case ie.key != "":
		server.WriteJSON(w, ie.status, map[string]any{"errors": []any{map[string]any{"error": map[string]any{
			"key": ie.key, "errors": []any{map[string]any{"code": ie.code, "message": ie.msg}}}}}})
	case ie.status == http.StatusPaymentRequired:
		server.WriteJSON(w, ie.status, map[string]any{"error": map[string]any{"code": ie.status, "message": ie.msg, "subscribeLink": ie.link}})
	default:
		server.WriteError(w, ie.status, ie.msg)
	}
}

// importFailure is the answer to a failed import: err itself when it is
// an *importError, else a storage failure, whose details (the statement,
// the engine's message) go to the log, not to the client: 503 when the
// database refuses writes (croql serve on a hot standby), 503 with
// Retry-After when it cannot be reached or cancelled the write, 500
// otherwise.
func (p *Platform) importFailure(project int64, name string, err error) *importError {
	var ie *importError
	if errors.As(err, &ie) {
		return ie
	}
	p.log.Error("croql serve: import failed", "project", project, "file", name, "err", err)
	if ie := unavailable(err); ie != nil {
		return ie
	}
	if errors.Is(err, server.ErrReadOnly) {
		return failf(http.StatusServiceUnavailable, "The database is read-only (a hot standby or a read replica): imports need croql serve on the primary; nothing was stored")
	}
	return failf(http.StatusInternalServerError, "The import could not be stored (nothing was stored); the server's log has the details")
}

func (p *Platform) importHandler(s *server.Server, translation bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw := r.PathValue("projectId")
		id, err := strconv.ParseInt(raw, 10, 64)
		g, _ := server.GrantOf(r)
		proj, ok := s.Storage().Project(id)
		if err != nil || !ok || !g.Reads(id) {
			server.WriteError(w, http.StatusNotFound, "Project Not Found")
			return
		}
		up, ierr := p.readUpload(w, r)
		if ierr == nil && translation {
			if up.language == "" {
				ierr = failf(http.StatusBadRequest, "A translation upload needs languageId (a form field or a query parameter)")
			} else if !proj.HasLanguage(up.language) {
				ierr = failf(http.StatusBadRequest, "languageId %q is not a target language of the project (%s)", up.language, strings.Join(proj.TargetLanguages, ", "))
			}
		}
		opts := ImportOptions{Organization: p.subs.Organization(server.Bearer(r))}
		if ierr == nil && up.option != "" {
			if translation {
				ierr = failf(http.StatusBadRequest, "updateOption applies to source uploads, not to translation uploads")
			} else if opts.UpdateOption, err = ParseUpdateOption(up.option); err != nil {
				ierr = failf(http.StatusBadRequest, "%v", err)
			}
		}
		var res *ImportResult
		if ierr == nil {
			release, ok := p.uploadSlot(w, r)
			if !ok {
				return
			}
			defer release()
			res, ierr = p.ImportWith(r.Context(), s.Storage(), proj, p.publicURL(r), up.name, up.data, up.language, opts)
		}
		if ierr != nil {
			writeFailure(w, p.importFailure(id, up.name, ierr))
			return
		}
		server.WriteJSON(w, http.StatusCreated, map[string]any{"data": res})
	})
}

func (p *Platform) publicURL(r *http.Request) string {
	if p.cfg.PublicURL != "" {
		return strings.TrimSuffix(p.cfg.PublicURL, "/")
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	// The address the connection arrived on, never r.Host: the Host
	// header is the client's to choose.
	if a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && a != nil {
		return scheme + "://" + a.String()
	}
	return scheme + "://localhost"
}

// readUpload reads multipart/form-data (the file in field "file", the
// language in "languageId") or a raw body named by the
// Crowdin-API-FileName header (as the platform's storage API takes it),
// with languageId in the query.
func (p *Platform) readUpload(w http.ResponseWriter, r *http.Request) (upload, error) {
	r.Body = http.MaxBytesReader(w, r.Body, p.cfg.MaxFileBytes+1<<20)
	up := upload{language: r.URL.Query().Get("languageId"), option: r.URL.Query().Get("updateOption")}
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt == "multipart/form-data" {
		// Parts past 1 MiB go to temporary files; readBody reads the file
		// within the body memory budget.
		_ = r.ParseMultipartForm(1 << 20)
		f, hdr, err := r.FormFile("file")
		if err != nil {
			return up, failf(http.StatusBadRequest, "The upload needs a file in the form field \"file\": %v", err)
		}
		defer f.Close()
		up.name = hdr.Filename
		if n := r.FormValue("name"); n != "" {
			up.name = n
		}
		if l := r.FormValue("languageId"); l != "" {
			up.language = l
		}
		if o := r.FormValue("updateOption"); o != "" {
			up.option = o
		}
		var ierr *importError
		if up.data, ierr = p.readBody(r, f, hdr.Size); ierr != nil {
			return up, ierr
		}
	} else {
		up.name = r.Header.Get("Crowdin-API-FileName")
		var ierr *importError
		if up.data, ierr = p.readBody(r, r.Body, r.ContentLength); ierr != nil {
			return up, ierr
		}
	}
	if int64(len(up.data)) > p.cfg.MaxFileBytes {
		return up, fileTooLarge(p.cfg.MaxFileBytes)
	}
	if up.name == "" || strings.ContainsAny(up.name, "/\\") {
		return up, failf(http.StatusBadRequest, "The file needs a name without slashes (multipart filename, form field \"name\" or the Crowdin-API-FileName header)")
	}
	return up, nil
}

// Import runs the import flow on a file of project proj: parse, the
// matching post-import module (if any), validation, then one write
// transaction. language is empty for a source file and the target
// language of a translation upload. publicURL is where apps reach this
// server (for contentUrl and stringsUrl). A failure leaves the project as
// it was. A source upload of an existing file is an update with the
// default update option (ImportWith takes another).
func (p *Platform) Import(ctx context.Context, st *server.Storage, proj *server.Project, publicURL, name string, data []byte, language string) (*ImportResult, error) {
	return p.ImportWith(ctx, st, proj, publicURL, name, data, language, ImportOptions{})
}

// ImportWith is Import with options.
func (p *Platform) ImportWith(ctx context.Context, st *server.Storage, proj *server.Project, publicURL, name string, data []byte, language string, opts ImportOptions) (*ImportResult, error) {
	opt, err := ParseUpdateOption(string(opts.UpdateOption))
	if err != nil {
		return nil, failf(http.StatusBadRequest, "%v", err)
	}
	parser, parsed, err := p.parseUpload(name, data)
	if err != nil {
		return nil, err
	}
	db := newWriter(proj)
	db.maxProjectBytes = p.cfg.MaxProjectBytes
	db.newFile = schema.File{Title: opts.Title, Context: opts.Context}
	fileID, existing, err := db.file(ctx, st, name)
	if err != nil {
		return nil, err
	}
	if opts.Create && language == "" && existing {
		return nil, invalidf("name", "notUnique", "A file named %s exists already (file %d): update it with PUT /api/v2/projects/%d/files/%d", name, fileID, proj.ID, fileID)
	}
	if language != "" && !existing {
		return nil, failf(http.StatusBadRequest, "Upload the source file %s before its translations", name)
	}
	org := opts.Organization
	if org == "" {
		org = DefaultOrganization
	}
	job := p.newJob(proj, publicURL, org, fileID, name)
	app, mod, found := p.selectModule(name, data)
	// The strings stored are built one at a time as they are written (a
	// large file is not held twice), unless a module is sent them first.
	var out uploadStrings
	if language == "" {
		out = parsedStrings{file: name, parsed: parsed}
		if found {
			job.Strings = sourceStrings(name, parsed)
			out = stringSlice(job.Strings)
		}
	} else {
		job.TargetLanguages = []postimport.Language{languageObject(language)}
		if found {
			stored, err := db.strings(ctx, st, fileID)
			if err != nil {
				return nil, err
			}
			job.Strings = translationStrings(stored, parsed, language)
			out = stringSlice(job.Strings)
		}
	}
	res := &ImportResult{FileID: fileID, Name: name, Type: parser.Type(), Language: language}
	if found {
		res.Module = app.Identifier + "/" + mod.Key
		answered, err := p.runJob(ctx, app, mod, job, data, publicURL, org)
		if err != nil {
			return nil, err
		}
		if answered == nil {
			res.NotModified = true
		} else if p.cfg.MaxFileStrings > 0 && len(answered) > p.cfg.MaxFileStrings {
			return nil, tooManyStrings(p.cfg.MaxFileStrings)
		} else {
			out = stringSlice(answered)
		}
	}
	if err := checkUploadBytes(out, parsed, language, p.cfg.MaxFileBytes); err != nil {
		return nil, err
	}
	if err := db.writeUpload(ctx, st, res, existing, parsed, out, opt, p.cfg.Now()); err != nil {
		return nil, err
	}
	return res, nil
}

// parseUpload reads an uploaded file with the parser of its format,
// within the file quotas: its strings and the bytes of their identifiers
// (nested JSON keys repeat their parents') are counted as they are read,
// before the strings are built.
func (p *Platform) parseUpload(name string, data []byte) (Parser, []Parsed, error) {
	parser, err := parserFor(p.cfg.Parsers, name, data)
	if err != nil {
		return nil, nil, failf(http.StatusBadRequest, "%v", err)
	}
	parsed, err := parseFile(parser, data, uploadQuota{strings: p.cfg.MaxFileStrings, keyBytes: p.cfg.MaxFileBytes})
	var kb *keyBytesError
	switch {
	case errors.Is(err, errTooManyStrings):
		return nil, nil, tooManyStrings(p.cfg.MaxFileStrings)
	case errors.As(err, &kb):
		return nil, nil, fileBytesTooLarge(kb.n, p.cfg.MaxFileBytes, "its identifiers: nested JSON keys repeat their parents'")
	case err != nil:
		return nil, nil, failf(http.StatusBadRequest, "The file %s could not be parsed: %v", name, err)
	}
	return parser, parsed, nil
}

// newJob is the job of a file of proj, before its strings and target
// languages are known.
func (p *Platform) newJob(proj *server.Project, publicURL, org string, fileID int64, name string) *postimport.Job {
	orgID, domain := orgClaims(org)
	return &postimport.Job{
		JobType:        p.cfg.JobType,
		Organization:   postimport.Organization{ID: orgID, Domain: domain, BaseURL: publicURL, APIBaseURL: publicURL},
		Project:        postimport.Project{ID: proj.ID, Identifier: proj.Name, Name: proj.Name},
		File:           postimport.File{ID: fileID, Name: name},
		SourceLanguage: languageObject(proj.SourceLanguage),
		// Empty for a source file (seed 2.3), one for a translation upload.
		TargetLanguages: []postimport.Language{},
	}
}

// writeUpload writes an upload's strings out (a module's answer, or nil for
// the parsed file's strings of a translation upload) and fills res.
func (w *writer) writeUpload(ctx context.Context, st *server.Storage, res *ImportResult, existing bool, parsed []Parsed, out uploadStrings, opt UpdateOption, now time.Time) error {
	var err error
	if res.Language == "" {
		res.Strings = out.Len()
		res.FileID, res.Update, err = w.replaceFile(ctx, st, res.FileID, existing, res.Name, res.Type, out, opt, now)
		return err
	}
	// Without a module, the strings are the file's as the write
	// transaction reads them, each with its uploaded translation.
	answer := func([]storedString) uploadStrings { return out }
	if out == nil {
		answer = func(stored []storedString) uploadStrings { return newTranslationList(stored, parsed, res.Language) }
	}
	res.Strings, err = w.storeTranslations(ctx, st, res.FileID, res.Name, answer, res.Language, now)
	return err
}

func (p *Platform) selectModule(name string, data []byte) (App, postimport.Module, bool) {
	for _, a := range p.apps {
		m, ok, err := postimport.Select(a.Modules, name, data)
		if err == nil && ok {
			return a, m, true
		}
	}
	return App{}, postimport.Module{}, false
}

// uniqID is the platform's "hash::sequence" form.
func uniqID(file, identifier string, seq int) string {
	h := sha256.Sum256([]byte(file + "\x00" + identifier))
	return hex.EncodeToString(h[:8]) + "::" + strconv.Itoa(seq)
}

func sourceStrings(file string, parsed []Parsed) []postimport.String {
	out := make([]postimport.String, len(parsed))
	for i := range parsed {
		out[i] = sourceString(file, parsed, i)
	}
	return out
}

// sourceString is the i-th string of a parsed source file, as a job
// carries it.
func sourceString(file string, parsed []Parsed, i int) postimport.String {
	ps := &parsed[i]
	s := postimport.String{UniqID: uniqID(file, ps.Identifier, i+1), Identifier: ps.Identifier, Context: ps.Context, MaxLength: ps.MaxLength}
	if ps.Hidden {
		hidden := true
		s.IsHidden = &hidden
	}
	if ps.Plural != nil {
		s.HasPlurals, s.Text = true, postimport.PluralText(ps.Plural)
	} else {
		s.Text = postimport.PlainText(ps.Text)
	}
	return s
}

// uploadStrings are the strings an upload stores, by index.
type uploadStrings interface {
	Len() int
	At(i int) postimport.String
}

// stringSlice are strings held whole: a job's or a module's answer.
type stringSlice []postimport.String

func (s stringSlice) Len() int                   { return len(s) }
func (s stringSlice) At(i int) postimport.String { return s[i] }

// parsedStrings are a parsed source file's strings, each built when it
// is read: about a third of the memory of the strings held whole.
type parsedStrings struct {
	file   string
	parsed []Parsed
}

func (p parsedStrings) Len() int                   { return len(p.parsed) }
func (p parsedStrings) At(i int) postimport.String { return sourceString(p.file, p.parsed, i) }

// translationStrings are the file's stored source strings, each with the
// uploaded translation into language when the file has its key.
func translationStrings(stored []storedString, parsed []Parsed, language string) []postimport.String {
	l := newTranslationList(stored, parsed, language)
	out := make([]postimport.String, l.Len())
	for i := range out {
		out[i] = l.At(i)
	}
	return out
}

// translationList are the strings of a translation upload (as
// translationStrings has them), each built when it is read.
type translationList struct {
	stored   []storedString
	parsed   []Parsed
	byKey    map[string]int // the index in parsed of the last string of a key
	language string
}

func newTranslationList(stored []storedString, parsed []Parsed, language string) translationList {
	byKey := make(map[string]int, len(parsed))
	for i := range parsed {
		byKey[parsed[i].Identifier] = i
	}
	return translationList{stored: stored, parsed: parsed, byKey: byKey, language: language}
}

func (l translationList) Len() int { return len(l.stored) }

func (l translationList) At(i int) postimport.String {
	ss := &l.stored[i]
	s := postimport.String{UniqID: ss.uniqID, Identifier: ss.Identifier, Context: ss.Context}
	if ss.MaxLength != nil {
		n := int(*ss.MaxLength)
		s.MaxLength = &n
	}
	if ss.plural() {
		s.HasPlurals, s.Text = true, postimport.PluralText(storedForms(&ss.SourceString))
	} else {
		s.Text = postimport.PlainText(ss.Text)
	}
	k, ok := l.byKey[ss.Identifier]
	if !ok {
		return s
	}
	ps := l.parsed[k].translation()
	if ps == nil || (ps.Plural != nil) != ss.plural() {
		return s
	}
	t := postimport.Translation{Status: postimport.PlainStatus(postimport.StatusTranslated)}
	if ss.plural() {
		t.Text = postimport.PluralText(ps.Plural)
		st := map[string]string{}
		for k := range ps.Plural {
			st[k] = postimport.StatusTranslated
		}
		t.Status = &postimport.Status{Plural: st}
	} else {
		t.Text = postimport.PlainText(ps.Text)
	}
	s.Translations = map[string]postimport.Translation{l.language: t}
	return s
}

// runJob sends the job to the module and returns the strings it answers
// (nil for 304), validated.
func (p *Platform) runJob(ctx context.Context, app App, mod postimport.Module, job *postimport.Job, data []byte, publicURL, org string) ([]postimport.String, error) {
	ctx, cancel := context.WithTimeout(ctx, p.cfg.JobTimeout)
	defer cancel()
	who := fmt.Sprintf("The app %s (module %s)", app.Identifier, mod.Key)
	token, err := p.jobToken(ctx, app, mod, job, publicURL, org, who)
	if err != nil {
		return nil, err
	}
	body, release, err := p.encodeJob(job, data, publicURL)
	defer release()
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, app.BaseURL+mod.URL, bytes.NewReader(body))
	if err != nil {
		return nil, failf(http.StatusBadGateway, "%s has an unusable URL: %v", who, err)
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := p.cfg.HTTPClient.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, failf(http.StatusGatewayTimeout, "%s did not answer within %s; nothing was imported", who, p.cfg.JobTimeout)
		}
		return nil, failf(http.StatusBadGateway, "%s could not be reached; nothing was imported", who)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotModified {
		return nil, nil
	}
	strs, err := p.answerStrings(ctx, resp, who)
	if err != nil {
		return nil, err
	}
	if strs == nil {
		strs = []postimport.String{}
	}
	// Every string is checked: decoded answers would otherwise count as
	// "unchanged since decoding" (app/postimport's rule for its own input).
	for i := range strs {
		strs[i] = strs[i].Detached()
	}
	if err := postimport.Validate(job, strs); err != nil {
		return nil, failf(http.StatusUnprocessableEntity, "%s produced invalid strings: %v; nothing was imported", who, err)
	}
	return strs, nil
}

// jobToken installs app in org when it has a client secret (the
// platform installs an app in an organization before it calls its
// modules there: the first job sends the event) and returns the JWT of
// the job; "" for an app without a secret.
func (p *Platform) jobToken(ctx context.Context, app App, mod postimport.Module, job *postimport.Job, publicURL, org, who string) (string, error) {
	if app.ClientSecret == "" {
		return "", nil
	}
	if err := p.Install(ctx, app, org, publicURL); err != nil {
		p.log.Warn("croql serve: installing an app failed", "app", app.Identifier, "organization", org, "err", err)
		return "", failf(http.StatusBadGateway, "%s could not be installed in the organization %s (%v); nothing was imported", who, org, err)
	}
	return p.moduleJWT(app, mod.Key, job.Project.ID, job.Project.Identifier, org)
}

// answerStrings reads a module's answer resp (not 304): the strings of
// data.strings or data.stringsUrl, or the failure the answer says.
func (p *Platform) answerStrings(ctx context.Context, resp *http.Response, who string) ([]postimport.String, error) {
	answer, err := io.ReadAll(io.LimitReader(resp.Body, p.cfg.MaxAnswerBytes+1))
	if err != nil {
		if ctx.Err() != nil {
			return nil, failf(http.StatusGatewayTimeout, "%s did not answer within %s; nothing was imported", who, p.cfg.JobTimeout)
		}
		return nil, failf(http.StatusBadGateway, "%s's answer could not be read; nothing was imported", who)
	}
	if int64(len(answer)) > p.cfg.MaxAnswerBytes {
		return nil, failf(http.StatusBadGateway, "%s answered more than %d bytes (the limit is 5 MB); nothing was imported", who, p.cfg.MaxAnswerBytes)
	}
	r, jsonErr := readAnswer(answer)
	if jsonErr != nil {
		return nil, failf(http.StatusBadGateway, "%s answered HTTP %d without a JSON body; nothing was imported", who, resp.StatusCode)
	}
	if resp.StatusCode == http.StatusPaymentRequired {
		return nil, paymentRequired(who, r)
	}
	if r.hasError {
		if r.message == "" {
			return nil, failf(http.StatusBadGateway, "%s answered HTTP %d with an error without a message; nothing was imported", who, resp.StatusCode)
		}
		// The app's message is shown to the user (seed 7).
		return nil, failf(http.StatusUnprocessableEntity, "%s", r.message)
	}
	if resp.StatusCode != http.StatusOK {
		if r.message != "" {
			return nil, failf(http.StatusBadGateway, "%s answered HTTP %d: %s; nothing was imported", who, resp.StatusCode, r.message)
		}
		return nil, failf(http.StatusBadGateway, "%s answered HTTP %d with a JSON body without error.message; nothing was imported", who, resp.StatusCode)
	}
	var strs []postimport.String
	switch {
	case r.data != nil && len(r.data.Strings) > 0 && string(r.data.Strings) != "null":
		if err := json.Unmarshal(r.data.Strings, &strs); err != nil {
			return nil, failf(http.StatusBadGateway, "%s answered strings that are not string objects: %v; nothing was imported", who, err)
		}
	case r.data != nil && r.data.StringsURL != "":
		if strs, err = p.fetchStrings(ctx, r.data.StringsURL); err != nil {
			if ctx.Err() != nil {
				return nil, failf(http.StatusGatewayTimeout, "%s did not answer within %s; nothing was imported", who, p.cfg.JobTimeout)
			}
			return nil, failf(http.StatusBadGateway, "%s answered a stringsUrl that could not be read: %v; nothing was imported", who, err)
		}
	default:
		return nil, failf(http.StatusBadGateway, "%s answered neither data.strings, data.stringsUrl nor error.message; nothing was imported", who)
	}
	return strs, nil
}

func (p *Platform) fetchStrings(ctx context.Context, raw string) ([]postimport.String, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, raw, nil)
	if err != nil {
		return nil, err
	}
	resp, err := p.cfg.HTTPClient.Do(req)
	if err != nil {
		return nil, errors.New("download failed")
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	return postimport.DecodeNDJSON(resp.Body, postimport.DefaultMaxLineBytes, p.cfg.MaxStringsURLBytes)
}

// encodeJob writes the job with the file and the strings inline when it
// fits MaxInlineJobBytes; otherwise the file goes as contentUrl, then the
// strings as stringsUrl, both served under /_platform/blobs/ until the
// job is over (release).
func (p *Platform) encodeJob(job *postimport.Job, data []byte, publicURL string) ([]byte, func(), error) {
	var releases []func()
	release := func() {
		for _, f := range releases {
			f()
		}
	}
	job.File.Content = base64.StdEncoding.EncodeToString(data)
	body, err := json.Marshal(job)
	if err != nil {
		return nil, release, err
	}
	if len(body) <= p.cfg.MaxInlineJobBytes {
		return body, release, nil
	}
	id, rel := p.blobs.put(data)
	releases = append(releases, rel)
	job.File.Content, job.File.ContentURL = "", publicURL+"/_platform/blobs/"+id
	if body, err = json.Marshal(job); err != nil || len(body) <= p.cfg.MaxInlineJobBytes {
		return body, release, err
	}
	var nd bytes.Buffer
	if err := postimport.EncodeNDJSON(&nd, job.Strings); err != nil {
		return nil, release, err
	}
	id, rel = p.blobs.put(nd.Bytes())
	releases = append(releases, rel)
	strs := job.Strings
	job.Strings, job.StringsURL = nil, publicURL+"/_platform/blobs/"+id
	body, err = json.Marshal(job)
	job.Strings = strs // Validate compares the answer with them
	return body, release, err
}
