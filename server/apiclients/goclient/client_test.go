package goclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/crowdin/crowdin-api-client-go/crowdin"
	"github.com/crowdin/crowdin-api-client-go/crowdin/model"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql"
	"github.com/croql/croql/internal/testdb"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/server"
	"github.com/croql/croql/server/platform"
)

const token = "go-client-token"

// rewrite sends the client's requests (to its constant base URL) to
// croql serve.
type rewrite struct {
	target *url.URL
	next   http.RoundTripper
}

func (t rewrite) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.URL.Scheme, r.URL.Host, r.Host = t.target.Scheme, t.target.Host, t.target.Host
	return t.next.RoundTrip(r)
}

func demo(t *testing.T) *schema.Project {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "..", "testdata", "demo", "project.json"))
	require.NoError(t, err)
	defer f.Close()
	p, err := schema.ReadProject(f)
	require.NoError(t, err)
	return p
}

// serve loads p into engine, serves it with the platform side (uploads)
// over loopback and returns the Go client pointed at it and the address.
func serve(t *testing.T, engine string, p *schema.Project) (*crowdin.Client, string) {
	t.Helper()
	ctx := context.Background()
	var st *server.Storage
	var err error
	if engine == "sqlite" {
		st, err = server.LoadSQLite(ctx, t.TempDir(), p)
	} else {
		st, err = server.LoadServer(ctx, engine, testdb.DSN(engine), p)
	}
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, st.Close()) })
	toks := &server.Tokens{}
	require.NoError(t, toks.Add(token))
	srv, err := server.New(server.Config{Storage: st, Tokens: toks, Now: func() time.Time { return time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC) }})
	require.NoError(t, err)
	pf, err := platform.New(ctx, platform.Config{})
	require.NoError(t, err)
	pf.Register(srv)
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	u, _ := url.Parse(hs.URL)
	c, err := crowdin.NewClient(token, crowdin.WithHTTPClient(&http.Client{Transport: rewrite{u, http.DefaultTransport}}))
	require.NoError(t, err)
	return c, hs.URL
}

// raw GETs path from croql serve and returns the objects of its data
// (one for a single object).
func raw(t *testing.T, base, path string) []map[string]any {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, base+path, nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s: %s", path, b)
	var body struct {
		Data json.RawMessage `json:"data"`
	}
	require.NoError(t, json.Unmarshal(b, &body))
	var list []struct {
		Data map[string]any `json:"data"`
	}
	if json.Unmarshal(body.Data, &list) == nil {
		out := make([]map[string]any, len(list))
		for i, x := range list {
			out[i] = x.Data
		}
		return out
	}
	var one map[string]any
	require.NoError(t, json.Unmarshal(body.Data, &one))
	return []map[string]any{one}
}

// jsonName is a struct field's JSON name and whether it is omitempty.
func jsonName(f reflect.StructField) (string, bool) {
	tag := f.Tag.Get("json")
	if tag == "-" || !f.IsExported() {
		return "", false
	}
	name, opts, _ := strings.Cut(tag, ",")
	if name == "" {
		name = f.Name
	}
	return name, strings.Contains(opts, "omitempty")
}

// missing walks the model type typ over the JSON object o and lists the
// fields the model declares that o lacks (path.name), recursing into
// structs, pointers to structs and slices of them. skip lists fields not
// required (by JSON name, at any depth).
func missing(typ reflect.Type, o map[string]any, path string, skip map[string]bool) []string {
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	var out []string
	for i := 0; i < typ.NumField(); i++ {
		f := typ.Field(i)
		if f.Anonymous {
			continue
		}
		name, _ := jsonName(f)
		if name == "" || skip[name] {
			continue
		}
		v, ok := o[name]
		if !ok {
			out = append(out, path+name)
			continue
		}
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		switch {
		case ft.Kind() == reflect.Struct:
			if m, ok := v.(map[string]any); ok {
				out = append(out, missing(ft, m, path+name+".", skip)...)
			}
		case ft.Kind() == reflect.Slice:
			et := ft.Elem()
			for et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() != reflect.Struct {
				continue
			}
			xs, _ := v.([]any)
			for _, x := range xs {
				if m, ok := x.(map[string]any); ok {
					out = append(out, missing(et, m, path+name+"[].", skip)...)
				}
			}
		}
	}
	return out
}

// projectSettings are the Go model's Project fields of the platform's
// ProjectSettings object (a manager's view, omitempty in the model, absent
// from the JS client's Project): croql serve sends the Project object.
func projectSettings() map[string]bool {
	skip := map[string]bool{}
	typ := reflect.TypeFor[model.Project]()
	base := map[string]bool{"groupId": true, "cname": true, "isExternal": true, "externalType": true, "workflowId": true,
		"hasCrowdsourcing": true, "fields": true}
	for i := 0; i < typ.NumField(); i++ {
		if name, omit := jsonName(typ.Field(i)); omit && !base[name] {
			skip[name] = true
		}
	}
	return skip
}

// TestModelsByReflection: for every list and single-object endpoint,
// every field the Go client's model declares is in croql serve's answer
// (a missing field fails, whatever its name).
func TestModelsByReflection(t *testing.T) {
	p := demo(t)
	for _, eng := range testdb.Engines(t) {
		t.Run(eng, func(t *testing.T) {
			_, base := serve(t, eng, p)
			none := map[string]bool{}
			cases := []struct {
				path string
				typ  reflect.Type
				skip map[string]bool
			}{
				{"/api/v2/projects", reflect.TypeFor[model.Project](), projectSettings()},
				{"/api/v2/projects/1", reflect.TypeFor[model.Project](), projectSettings()},
				{"/api/v2/projects/1/strings?limit=500", reflect.TypeFor[model.SourceString](), none},
				{"/api/v2/projects/1/strings/8", reflect.TypeFor[model.SourceString](), none},
				{"/api/v2/projects/1/files", reflect.TypeFor[model.File](), none},
				{"/api/v2/projects/1/files/1", reflect.TypeFor[model.File](), none},
				{"/api/v2/projects/1/labels", reflect.TypeFor[model.Label](), none},
				{"/api/v2/projects/1/labels/1", reflect.TypeFor[model.Label](), none},
				{"/api/v2/tms", reflect.TypeFor[model.TranslationMemory](), none},
				{"/api/v2/tms/1", reflect.TypeFor[model.TranslationMemory](), none},
				{"/api/v2/tms/1/segments?limit=500", reflect.TypeFor[model.TMSegment](), none},
				{"/api/v2/tms/1/segments/" + itoa(p.TMSegments[0].ID), reflect.TypeFor[model.TMSegment](), none},
				{"/api/v2/glossaries", reflect.TypeFor[model.Glossary](), none},
				{"/api/v2/glossaries/1", reflect.TypeFor[model.Glossary](), none},
				{"/api/v2/glossaries/1/terms?limit=500", reflect.TypeFor[model.Term](), none},
				{"/api/v2/glossaries/1/terms/" + itoa(p.GlossaryTerms[0].ID), reflect.TypeFor[model.Term](), none},
			}
			// Language progress: branchId and fileId belong to the file and
			// branch progress the model shares; the model's "etag" is the
			// JS client's and the platform's "eTag".
			cases = append(cases, struct {
				path string
				typ  reflect.Type
				skip map[string]bool
			}{"/api/v2/projects/1/languages/progress", reflect.TypeFor[model.TranslationProgress](), map[string]bool{"branchId": true, "fileId": true, "etag": true}},
				struct {
					path string
					typ  reflect.Type
					skip map[string]bool
				}{"/api/v2/projects/1/files/1/languages/progress", reflect.TypeFor[model.TranslationProgress](), map[string]bool{"branchId": true, "fileId": true, "etag": true}},
				// A language's progress per file: languageId and language
				// belong to the other kinds.
				struct {
					path string
					typ  reflect.Type
					skip map[string]bool
				}{"/api/v2/projects/1/languages/de/progress", reflect.TypeFor[model.TranslationProgress](), map[string]bool{"languageId": true, "language": true, "etag": true}})
			for _, c := range cases {
				objs := raw(t, base, c.path)
				require.NotEmpty(t, objs, c.path)
				for _, o := range objs {
					require.Empty(t, missing(c.typ, o, "", c.skip), "%s: %v", c.path, o["id"])
				}
			}
			// The translations list: a plain or ICU string's object has the
			// fields of the plain variant, a plural string's the plural
			// variant (LanguageTranslation holds both, each half omitempty).
			plural := map[string]bool{"translationId": true, "text": true, "user": true, "createdAt": true}
			plain := map[string]bool{"plurals": true}
			var plurals, plains int
			for _, lang := range p.TargetLanguages {
				for _, o := range raw(t, base, "/api/v2/projects/1/languages/"+lang+"/translations?limit=500") {
					skip := plain
					if _, ok := o["plurals"]; ok {
						skip = plural
						plurals++
					} else {
						plains++
					}
					require.Empty(t, missing(reflect.TypeFor[model.LanguageTranslation](), o, "", skip), "%s %v", lang, o["stringId"])
				}
			}
			require.NotZero(t, plurals)
			require.NotZero(t, plains)
		})
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// evalIDs runs src with the evaluator over p's objects of context ctx.
func evalIDs(t *testing.T, p *schema.Project, ctx, src string) []int {
	t.Helper()
	env, err := croql.NewEnv(ctx, croql.WithUserIDs(p.UserIDs()), croql.WithEdition(schema.Enterprise))
	require.NoError(t, err)
	q, diags := env.Compile(src)
	require.False(t, diags.HasErrors(), "%s: %v", src, diags)
	var ids []int
	for _, o := range p.Objects(env.Context()) {
		ok, err := q.Match(o)
		require.NoError(t, err)
		if ok {
			id, _ := schema.ObjectID(o)
			ids = append(ids, int(id))
		}
	}
	slices.Sort(ids)
	return ids
}

// TestGoClient: every endpoint through the Go client's own methods, the
// documented parameters against the evaluator on the equivalent croql,
// the refusals as the client's ValidationErrorResponse, and the two-step
// upload.
func TestGoClient(t *testing.T) {
	p := demo(t)
	ctx := context.Background()
	for _, eng := range testdb.Engines(t) {
		t.Run(eng, func(t *testing.T) {
			c, _ := serve(t, eng, p)
			o := outcomes{}

			projects, _, err := c.Projects.List(ctx, nil)
			o.rec("projects.list", err)
			require.NoError(t, err)
			require.Len(t, projects, 1)
			require.Equal(t, p.SourceLanguage, projects[0].SourceLanguage.ID)
			require.Len(t, projects[0].TargetLanguages, len(projects[0].TargetLanguageIDs))
			require.NotEmpty(t, projects[0].CreatedAt)
			require.NotContains(t, projects[0].Identifier, " ")
			pr, _, err := c.Projects.Get(ctx, 1)
			o.rec("projects.get", err)
			require.NoError(t, err)
			require.Equal(t, projects[0].Name, pr.Name)
			one := 1
			_, _, err = c.Projects.List(ctx, &model.ProjectsListOptions{HasManagerAccess: &one})
			o.rec("projects.hasManagerAccess", err)
			requireRefused(t, err, "hasManagerAccess")

			// Strings: the Go model's text is a string, so a page with a
			// plural string (text an object of forms, as the platform
			// sends it) does not decode; these lists leave plurals out.
			ids := func(ss []*model.SourceString) []int {
				var out []int
				for _, s := range ss {
					out = append(out, s.ID)
				}
				return out
			}
			strs, _, err := c.SourceStrings.List(ctx, 1, &model.SourceStringsListOptions{CroQL: "not (type is plural)", ListOptions: model.ListOptions{Limit: 500}})
			o.rec("strings.croql", err)
			require.NoError(t, err)
			require.Equal(t, evalIDs(t, p, croql.Strings, "not (type is plural)"), ids(strs))
			for _, s := range strs {
				require.Contains(t, []string{"text", "icu", "asset"}, s.Type)
				require.NotNil(t, s.LabelIDs)
			}
			strs, _, err = c.SourceStrings.List(ctx, 1, &model.SourceStringsListOptions{FileID: 1})
			o.rec("strings.fileId", err)
			require.NoError(t, err)
			require.Equal(t, evalIDs(t, p, croql.Strings, "id of file = 1"), ids(strs))
			strs, _, err = c.SourceStrings.List(ctx, 1, &model.SourceStringsListOptions{FileID: 1, LabelIDs: []int{3}})
			o.rec("strings.labelIds", err)
			require.NoError(t, err)
			require.Equal(t, evalIDs(t, p, croql.Strings, "id of file = 1 and count of labels where (id = 3) > 0"), ids(strs))
			strs, _, err = c.SourceStrings.List(ctx, 1, &model.SourceStringsListOptions{Filter: "checkout", Scope: "identifier", ListOptions: model.ListOptions{Limit: 500}})
			o.rec("strings.filter.scope", err)
			require.NoError(t, err)
			require.Equal(t, evalIDs(t, p, croql.Strings, `identifier contains "checkout"`), ids(strs))
			_, _, err = c.SourceStrings.List(ctx, 1, &model.SourceStringsListOptions{FileID: 1, CroQL: "is hidden"})
			o.rec("strings.croql+fileId", err)
			requireRefused(t, err, "fileId")
			_, _, err = c.SourceStrings.List(ctx, 1, &model.SourceStringsListOptions{DirectoryID: 1})
			o.rec("strings.directoryId", err)
			requireRefused(t, err, "directoryId")
			_, _, err = c.SourceStrings.List(ctx, 1, &model.SourceStringsListOptions{CroQL: "is hiden"})
			o.rec("strings.badCroql", err)
			requireRefused(t, err, "croql")
			_, _, err = c.SourceStrings.List(ctx, 1, &model.SourceStringsListOptions{FileID: 4})
			o.rec("strings.fileId.plural", err)
			var ute *json.UnmarshalTypeError
			require.ErrorAs(t, err, &ute, "the Go model cannot hold a plural string's text")
			s1, _, err := c.SourceStrings.Get(ctx, 1, 1, nil)
			o.rec("strings.get", err)
			require.NoError(t, err)
			require.Equal(t, 1, s1.ID)
			_, _, err = c.SourceStrings.Get(ctx, 1, 999999, nil)
			var er *model.ErrorResponse
			o.rec("strings.get.missing", err)
			require.ErrorAs(t, err, &er)
			require.Equal(t, 404, er.Response.StatusCode)

			// Translations: one object per string.
			trs, _, err := c.StringTranslations.ListLanguageTranslations(ctx, 1, "de", &model.LanguageTranslationsListOptions{ListOptions: model.ListOptions{Limit: 500}})
			o.rec("translations.all", err)
			require.NoError(t, err)
			require.NotEmpty(t, trs)
			seen := map[int]bool{}
			for _, tr := range trs {
				require.False(t, seen[tr.StringID], "one object per string")
				seen[tr.StringID] = true
				if tr.Plurals != nil {
					for _, pl := range tr.Plurals {
						require.NotEmpty(t, pl.PluralForm)
						require.NotNil(t, pl.User)
					}
					continue
				}
				require.NotNil(t, tr.TranslationID)
				require.NotNil(t, tr.User)
				require.NotNil(t, tr.CreatedAt)
			}
			trs, _, err = c.StringTranslations.ListLanguageTranslations(ctx, 1, "de", &model.LanguageTranslationsListOptions{StringIDs: []int{1, 2}})
			o.rec("translations.stringIds", err)
			require.NoError(t, err)
			var sids []int
			for _, tr := range trs {
				sids = append(sids, tr.StringID)
			}
			for _, id := range sids {
				require.Contains(t, []int{1, 2}, id)
			}
			_, _, err = c.StringTranslations.ListLanguageTranslations(ctx, 1, "de", &model.LanguageTranslationsListOptions{FileID: 1, CroQL: "count of votes > 0"})
			o.rec("translations.croql+fileId", err)
			requireRefused(t, err, "fileId")
			_, _, err = c.StringTranslations.ListLanguageTranslations(ctx, 1, "de", &model.LanguageTranslationsListOptions{DirectoryID: 1})
			o.rec("translations.directoryId", err)
			requireRefused(t, err, "directoryId")

			// TM and glossary.
			tm, _, err := c.TranslationMemory.GetTM(ctx, 1)
			o.rec("tm.get", err)
			require.NoError(t, err)
			require.Equal(t, len(p.TMSegments), tm.SegmentsCount)
			tms, _, err := c.TranslationMemory.ListTMs(ctx, nil)
			o.rec("tm.list", err)
			require.NoError(t, err)
			require.Len(t, tms, 1)
			segs, _, err := c.TranslationMemory.ListTMSegments(ctx, 1, &model.TMSegmentsListOptions{CroQL: "count of records where (usageCount > 5) > 0", ListOptions: model.ListOptions{Limit: 500}})
			o.rec("tm.segments.croql", err)
			require.NoError(t, err)
			var segIDs []int
			for _, s := range segs {
				segIDs = append(segIDs, s.ID)
				for _, r := range s.Records {
					require.NotEmpty(t, r.LanguageID)
				}
			}
			require.Equal(t, evalIDs(t, p, croql.TM, "count of records where (usageCount > 5) > 0"), segIDs)
			seg, _, err := c.TranslationMemory.GetTMSegment(ctx, 1, segs[0].ID)
			o.rec("tm.segment.get", err)
			require.NoError(t, err)
			require.Equal(t, segs[0].ID, seg.ID)
			gl, _, err := c.Glossaries.GetGlossary(ctx, 1)
			o.rec("glossary.get", err)
			require.NoError(t, err)
			require.Equal(t, len(p.GlossaryTerms), gl.Terms)
			gls, _, err := c.Glossaries.ListGlossaries(ctx, nil)
			o.rec("glossary.list", err)
			require.NoError(t, err)
			require.Len(t, gls, 1)
			terms, _, err := c.Glossaries.ListTerms(ctx, 1, &model.TermsListOptions{LanguageID: "de", ListOptions: model.ListOptions{Limit: 500}})
			o.rec("terms.languageId", err)
			require.NoError(t, err)
			var termIDs []int
			for _, x := range terms {
				termIDs = append(termIDs, x.ID)
				require.Equal(t, "de", x.LanguageID)
				require.NotContains(t, x.Status, "_")
				require.NotContains(t, x.Type, "_")
			}
			require.Equal(t, evalIDs(t, p, croql.Glossary, `language = @language:"de"`), termIDs)
			term, _, err := c.Glossaries.GetTerm(ctx, 1, terms[0].ID)
			o.rec("terms.get", err)
			require.NoError(t, err)
			require.Equal(t, terms[0].Text, term.Text)
			_, _, err = c.Glossaries.ListTerms(ctx, 1, &model.TermsListOptions{LanguageID: "de", CroQL: `text contains "a"`})
			o.rec("terms.croql+languageId", err)
			requireRefused(t, err, "languageId")

			prog, _, err := c.TranslationStatus.GetProjectProgress(ctx, 1, nil)
			o.rec("progress.project", err)
			require.NoError(t, err)
			require.Len(t, prog, len(p.TargetLanguages))
			require.NotZero(t, prog[0].Phrases["total"])
			fprog, _, err := c.TranslationStatus.GetLanguageProgress(ctx, 1, "de", nil)
			o.rec("progress.language", err)
			require.NoError(t, err)
			require.Len(t, fprog, len(p.Files))
			require.NotNil(t, fprog[0].FileID)
			lprog, _, err := c.TranslationStatus.GetFileProgress(ctx, 1, 1, nil)
			o.rec("progress.file", err)
			require.NoError(t, err)
			require.Len(t, lprog, len(p.TargetLanguages))

			// Files and labels.
			files, _, err := c.SourceFiles.ListFiles(ctx, 1, nil)
			o.rec("files.list", err)
			require.NoError(t, err)
			require.Len(t, files, len(p.Files))
			_, _, err = c.SourceFiles.ListFiles(ctx, 1, &model.FileListOptions{DirectoryID: 1})
			o.rec("files.directoryId", err)
			requireRefused(t, err, "directoryId")
			f1, _, err := c.SourceFiles.GetFile(ctx, 1, files[0].ID)
			o.rec("files.get", err)
			require.NoError(t, err)
			require.Equal(t, files[0].Name, f1.Name)
			labels, _, err := c.Labels.List(ctx, 1, nil)
			o.rec("labels.list", err)
			require.NoError(t, err)
			require.NotEmpty(t, labels)
			l1, _, err := c.Labels.Get(ctx, 1, labels[0].ID)
			o.rec("labels.get", err)
			require.NoError(t, err)
			require.Equal(t, labels[0].Title, l1.Title)

			// The two-step upload.
			dir := t.TempDir()
			src := filepath.Join(dir, "upload.json")
			require.NoError(t, os.WriteFile(src, []byte(`{"go.hello":"Hello from Go","go.bye":"Bye"}`), 0o600))
			fh, err := os.Open(src)
			require.NoError(t, err)
			defer fh.Close()
			stg, _, err := c.Storages.Add(ctx, fh)
			o.rec("upload.storage", err)
			require.NoError(t, err)
			require.Equal(t, "upload.json", stg.FileName)
			file, _, err := c.SourceFiles.AddFile(ctx, 1, &model.FileAddRequest{StorageID: stg.ID, Name: "upload.json"})
			o.rec("upload.createFile", err)
			require.NoError(t, err)
			require.Equal(t, "upload.json", file.Name)
			require.Equal(t, 1, file.ProjectID)
			strs, _, err = c.SourceStrings.List(ctx, 1, &model.SourceStringsListOptions{FileID: file.ID})
			o.rec("upload.strings", err)
			require.NoError(t, err)
			require.Len(t, strs, 2)
			tr := filepath.Join(dir, "de.json")
			require.NoError(t, os.WriteFile(tr, []byte(`{"go.hello":"Hallo aus Go"}`), 0o600))
			th, err := os.Open(tr)
			require.NoError(t, err)
			defer th.Close()
			stg, _, err = c.Storages.Add(ctx, th)
			o.rec("upload.translationStorage", err)
			require.NoError(t, err)
			up, _, err := c.Translations.UploadTranslations(ctx, 1, "de", &model.UploadTranslationsRequest{StorageID: stg.ID, FileID: file.ID})
			o.rec("upload.uploadTranslation", err)
			require.NoError(t, err)
			require.Equal(t, "de", up.LanguageID)
			require.Equal(t, file.ID, up.FileID)
			var hello int
			for _, s := range strs {
				if s.Identifier == "go.hello" {
					hello = s.ID
				}
			}
			trs, _, err = c.StringTranslations.ListLanguageTranslations(ctx, 1, "de", &model.LanguageTranslationsListOptions{StringIDs: []int{hello}})
			o.rec("upload.translations", err)
			require.NoError(t, err)
			require.Len(t, trs, 1)
			require.Equal(t, "Hallo aus Go", *trs[0].Text)

			// Files as the platform keeps them: a name in use is refused,
			// UpdateOrRestoreFile updates the same file id (the unchanged
			// string keeps its id and translation), a restore is refused,
			// DeleteFile removes the file.
			storage := func(name, content string) int {
				path := filepath.Join(t.TempDir(), name)
				require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
				f, err := os.Open(path)
				require.NoError(t, err)
				defer f.Close()
				stg, _, err := c.Storages.Add(ctx, f)
				require.NoError(t, err)
				return stg.ID
			}
			_, _, err = c.SourceFiles.AddFile(ctx, 1, &model.FileAddRequest{StorageID: storage("upload.json", `{"x":"X"}`), Name: "upload.json"})
			o.rec("files.createFile.nameInUse", err)
			requireRefused(t, err, "name")
			updated, _, err := c.SourceFiles.UpdateOrRestoreFile(ctx, 1, file.ID, &model.FileUpdateRestoreRequest{
				StorageID: storage("upload.json", `{"go.hello":"Hello from Go","go.later":"Later"}`), UpdateOption: "keep_translations"})
			o.rec("files.updateOrRestoreFile", err)
			require.NoError(t, err)
			require.Equal(t, file.ID, updated.ID)
			strs, _, err = c.SourceStrings.List(ctx, 1, &model.SourceStringsListOptions{FileID: file.ID})
			o.rec("files.updated.strings", err)
			require.NoError(t, err)
			require.ElementsMatch(t, []string{"go.hello", "go.later"}, []string{strs[0].Identifier, strs[1].Identifier})
			require.Contains(t, ids(strs), hello)
			trs, _, err = c.StringTranslations.ListLanguageTranslations(ctx, 1, "de", &model.LanguageTranslationsListOptions{StringIDs: []int{hello}})
			o.rec("files.updated.translations", err)
			require.NoError(t, err)
			require.Len(t, trs, 1)
			_, _, err = c.SourceFiles.UpdateOrRestoreFile(ctx, 1, file.ID, &model.FileUpdateRestoreRequest{RevisionID: 1})
			o.rec("files.restore", err)
			requireRefused(t, err, "revisionId")
			_, err = c.SourceFiles.DeleteFile(ctx, 1, file.ID)
			o.rec("files.deleteFile", err)
			require.NoError(t, err)
			_, _, err = c.SourceFiles.GetFile(ctx, 1, file.ID)
			o.rec("files.deleted.get", err)
			require.Error(t, err)

			// Plurals: a JSON plural and an Android <plurals> keep every
			// form. The Go model's SourceString.Text is a string, so the
			// strings are read through the client's Get into the
			// platform's shape (text an object of forms).
			pl, _, err := c.SourceFiles.AddFile(ctx, 1, &model.FileAddRequest{StorageID: storage("plural.json",
				`{"apples":{"one":"One apple","other":"{n} apples"},"icu":"{n, plural, one {# pear} other {# pears}}"}`), Name: "plural.json"})
			o.rec("files.plural.createFile", err)
			require.NoError(t, err)
			an, _, err := c.SourceFiles.AddFile(ctx, 1, &model.FileAddRequest{StorageID: storage("go-plurals.xml",
				`<resources><plurals name="days"><item quantity="one">%d day</item><item quantity="few">%d dni</item><item quantity="other">%d days</item></plurals></resources>`),
				Name: "go-plurals.xml"})
			require.NoError(t, err)
			_, _, err = c.SourceStrings.List(ctx, 1, &model.SourceStringsListOptions{FileID: pl.ID})
			o.rec("files.plural.strings", err)
			require.ErrorAs(t, err, &ute, "the typed list of a plural string does not decode")
			texts := map[string]any{}
			for _, fid := range []int{pl.ID, an.ID} {
				var page struct {
					Data []struct {
						Data struct {
							Identifier string `json:"identifier"`
							Text       any    `json:"text"`
							Type       string `json:"type"`
							HasPlurals bool   `json:"hasPlurals"`
						} `json:"data"`
					} `json:"data"`
				}
				_, err = c.Get(ctx, "/api/v2/projects/1/strings?fileId="+itoa(int64(fid)), nil, &page)
				o.rec("files.plural.strings.rawJSON", err)
				require.NoError(t, err)
				for _, d := range page.Data {
					texts[d.Data.Identifier] = d.Data.Text
					require.Equal(t, d.Data.Identifier != "icu", d.Data.HasPlurals, d.Data.Identifier)
					if d.Data.Identifier == "icu" {
						require.Equal(t, "icu", d.Data.Type)
					}
				}
			}
			require.Equal(t, map[string]any{
				"apples": map[string]any{"one": "One apple", "other": "{n} apples"},
				"days":   map[string]any{"one": "%d day", "few": "%d dni", "other": "%d days"},
				"icu":    "{n, plural, one {# pear} other {# pears}}",
			}, texts)
			o.check(t)
		})
	}
}

// requireRefused asserts a 400 whose validation error names key.
func requireRefused(t *testing.T, err error, key string) {
	t.Helper()
	var ve *model.ValidationErrorResponse
	require.True(t, errors.As(err, &ve), "want a validation error naming %s, got %v", key, err)
	require.Equal(t, http.StatusBadRequest, ve.Response.StatusCode)
	require.NotEmpty(t, ve.Errors)
	require.Equal(t, key, ve.Errors[0].ErrorDetail.Key)
}
