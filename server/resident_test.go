package server_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/croql/croql"
	demodata "github.com/croql/croql/demo"
	"github.com/croql/croql/internal/corpus"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/server"
)

// residentPair serves one store twice over loopback: from the resident
// snapshot and from the database alone.
func residentPair(t *testing.T, engine string) (resident, db *httptest.Server, rs *server.Server, st *server.Storage) {
	t.Helper()
	return residentPairOf(t, engine, demodata.Generate(demodata.Options{Strings: 1500, Seed: 7}))
}

// residentPairOf is residentPair over project p.
func residentPairOf(t *testing.T, engine string, p *schema.Project) (resident, db *httptest.Server, rs *server.Server, st *server.Storage) {
	t.Helper()
	ctx := context.Background()
	var err error
	if engine == "sqlite" {
		st, err = server.LoadSQLite(ctx, t.TempDir(), p)
	} else {
		st, err = server.LoadServer(ctx, engine, dsnOf(engine), p)
	}
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, st.Close()) })
	toks := &server.Tokens{}
	require.NoError(t, toks.Add(token))
	rs, err = server.New(server.Config{Storage: st, Tokens: toks, Now: clock, ResidentMaxBytes: 1 << 30})
	require.NoError(t, err)
	n, err := rs.BuildResident(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	require.Positive(t, rs.ResidentBytes(1))
	sq, err := server.New(server.Config{Storage: st, Tokens: toks, Now: clock})
	require.NoError(t, err)
	require.Zero(t, sq.ResidentBytes(1))
	return httptestServer(t, rs), httptestServer(t, sq), rs, st
}

// raw sends req's copy to hs and returns the status and the body as sent.
func raw(t *testing.T, hs *httptest.Server, method, path, body string) (int, string) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, hs.URL+path, rd)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := hs.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

// TestResidentAnswersAsTheDatabase sends every seed pattern of the lists
// the snapshot holds, as first pages, totals, deep pages and POST bodies,
// to a server answering from its resident snapshot and to one answering
// from the database, and compares the answers byte for byte.
func TestResidentAnswersAsTheDatabase(t *testing.T) {
	cases, err := corpus.LoadFile(filepath.Join(repoRoot(t), "testdata", "corpus", "seed_patterns.txt"))
	require.NoError(t, err)
	paths := map[string]string{}
	for _, ctx := range []string{croql.Strings, croql.TM, croql.Glossary, croql.Translations} {
		paths[ctx] = listPath(ctx, "de")
	}
	type query struct{ path, src string }
	// Queries with errors: the same 400 either way.
	bad := []string{"count of translations >", "id > 0"}
	queries := []query{{paths[croql.Strings], ""}, {paths[croql.TM], ""}, {paths[croql.Glossary], ""}, {paths[croql.Translations], ""},
		{paths[croql.Strings], bad[0]}, {paths[croql.Strings], bad[1]}}
	for _, c := range cases {
		if path, ok := paths[c.Context()]; ok && !c.Has("diag") && c.Edition() != "enterprise" {
			queries = append(queries, query{path, c.Query()})
		}
	}
	// The translations list: its strings from the snapshot, its choice
	// of translation per string the database's.
	for _, src := range []string{`count of approvals > 0`, `count of votes where (is up) > 0 or user = @user:"alice"`, `text contains "e"`, `pluralForm = "other"`} {
		queries = append(queries, query{paths[croql.Translations], src})
	}
	require.Greater(t, len(queries), 40)
	for _, engine := range engines(t) {
		if engine == "mysql" {
			continue // the same code path; PostgreSQL and SQLite cover it
		}
		t.Run(engine, func(t *testing.T) {
			res, db, rs, _ := residentPair(t, engine)
			for _, q := range queries {
				b0 := server.ResidentServed(rs)
				for _, form := range []url.Values{
					{"limit": {"25"}},
					{"limit": {"25"}, "withTotal": {"true"}},
					{"limit": {"7"}, "offset": {"40"}, "withTotal": {"true"}},
					{"limit": {"500"}, "offset": {"1000"}},
					{"limit": {"25"}, "offset": {"50000"}, "withTotal": {"1"}},
				} {
					form.Set("croql", q.src)
					u := q.path + "?" + form.Encode()
					ws, wb := raw(t, db, http.MethodGet, u, "")
					gs, gb := raw(t, res, http.MethodGet, u, "")
					require.Equal(t, ws, gs, "%s", u)
					require.Equal(t, wb, gb, "%s", u)
				}
				body := fmt.Sprintf(`{"croql":%s,"limit":30,"offset":10,"withTotal":true}`, jsonString(q.src))
				ws, wb := raw(t, db, http.MethodPost, q.path+"/query", body)
				gs, gb := raw(t, res, http.MethodPost, q.path+"/query", body)
				require.Equal(t, ws, gs, "POST %s", body)
				require.Equal(t, wb, gb, "POST %s", body)
				if q.src != bad[0] && q.src != bad[1] {
					require.Equal(t, b0+6, server.ResidentServed(rs), "answered from the snapshot: %s", q.src)
				}
			}
			// orderBy goes to the database, with the same answer.
			u := paths[croql.Strings] + "?orderBy=identifier%20desc&limit=5"
			served := server.ResidentServed(rs)
			ws, wb := raw(t, db, http.MethodGet, u, "")
			gs, gb := raw(t, res, http.MethodGet, u, "")
			require.Equal(t, ws, gs)
			require.Equal(t, wb, gb)
			require.Equal(t, served, server.ResidentServed(rs))
			// The translations list in descending string order: the
			// snapshot's, with the same answer.
			for _, u := range []string{paths[croql.Translations] + "?orderBy=stringId%20desc&limit=9&offset=3&withTotal=true",
				paths[croql.Translations] + "?orderBy=stringId%20desc&limit=9&croql=" + url.QueryEscape(`count of approvals > 0`)} {
				served := server.ResidentServed(rs)
				ws, wb := raw(t, db, http.MethodGet, u, "")
				gs, gb := raw(t, res, http.MethodGet, u, "")
				require.Equal(t, http.StatusOK, gs, gb)
				require.Contains(t, gb, `"stringId"`)
				require.Equal(t, ws, gs)
				require.Equal(t, wb, gb, u)
				require.Equal(t, served+1, server.ResidentServed(rs), u)
			}
		})
	}
}

// TestResidentDroppedOnWrite: a write to the project ends its snapshot;
// the database answers from then on.
func TestResidentDroppedOnWrite(t *testing.T) {
	_, _, rs, st := residentPair(t, "sqlite")
	p, ok := st.Project(1)
	require.True(t, ok)
	hs := httptestServer(t, rs)
	status, _ := raw(t, hs, http.MethodGet, "/api/v2/projects/1/strings?limit=3", "")
	require.Equal(t, http.StatusOK, status)
	require.Equal(t, int64(1), server.ResidentServed(rs))
	require.NoError(t, st.WriteTx(context.Background(), p, func(tx *sql.Tx) error {
		_, err := tx.Exec(`UPDATE strings SET text = 'changed' WHERE id = (SELECT MIN(id) FROM strings)`)
		return err
	}))
	require.Zero(t, rs.ResidentBytes(1))
	status, body := raw(t, hs, http.MethodGet, "/api/v2/projects/1/strings?limit=1", "")
	require.Equal(t, http.StatusOK, status)
	require.Contains(t, body, `"text":"changed"`)
	require.Equal(t, int64(1), server.ResidentServed(rs))
	// A snapshot is not rebuilt from a source the project has left.
	n, err := rs.BuildResident(context.Background())
	require.NoError(t, err)
	require.Zero(t, n)
}

// TestRunBuildsResident: croql serve streams a file into its store, then
// builds the resident snapshot from the file in the background and
// answers from it, with the same answer as the database's.
func TestRunBuildsResident(t *testing.T) {
	file := writeDemo(t)
	var logb syncBuffer
	addr, srv, stop := runServer(t, server.RunOptions{Data: []string{file}, Token: token, Log: &logb,
		Config: server.Config{ResidentMaxBytes: server.DefaultResidentMaxBytes}})
	defer func() { require.NoError(t, stop()) }()
	require.Eventually(t, func() bool { return strings.Contains(logb.String(), "project(s) resident in memory") }, time.Minute, 10*time.Millisecond)
	require.Contains(t, logb.String(), "1 project(s) resident")
	require.Contains(t, logb.String(), "project 1: resident in memory")
	resp, err := http.Get("http://" + addr + "/readyz")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	req, err := http.NewRequest(http.MethodGet, "http://"+addr+"/api/v2/projects/1/strings?croql=count%20of%20translations%20%3E%200&limit=3&withTotal=true", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", body)
	require.Equal(t, int64(1), server.ResidentServed(srv))
	p := demo(t)
	want := evalIDs(t, p, croql.Strings, "", "count of translations > 0")
	require.Contains(t, string(body), fmt.Sprintf(`"total":%d`, len(want)))
}

// syncBuffer is a bytes.Buffer safe for one writer and one reader at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// TestResidentIndexedFirstPage: a first page the evaluator has not found
// within its visits goes to SQLite when the plan finds it by an index,
// and stays with the evaluator otherwise; the answers are the same.
func TestResidentIndexedFirstPage(t *testing.T) {
	res, db, rs, _ := residentPair(t, "sqlite")
	server.SetResidentPageVisits(rs, 10)
	for _, c := range []struct {
		query    string
		total    bool
		resident bool
	}{
		{`identifier = "no-such-key"`, false, false},
		{`identifier = "no-such-key"`, true, true},
		{`text contains "no-such-text"`, false, true},
		{`count of translations > 0`, false, true},
		// By rowid from a list the subquery builds by a scan: the evaluator.
		{`count of translations where (text = "no-such-text") > 0`, false, true},
		// Nobody approved as alice: the page's EXISTS forms read the
		// strings in order, the whole-set IN forms start from alice's
		// approvals by their index, and the database answers by those.
		{`count of translations where (count of approvals where (user = @user:"alice") > 0) > 0`, false, false},
		// Erin approved a few strings, fewer than a page among the first
		// visits: the same, with a page that is not empty.
		{`count of translations where (count of approvals where (user = @user:"erin") > 0) > 0`, false, false},
	} {
		q := url.Values{"croql": {c.query}, "limit": {"25"}}
		if c.total {
			q.Set("withTotal", "true")
		}
		u := "/api/v2/projects/1/strings?" + q.Encode()
		before := server.ResidentServed(rs)
		ws, wb := raw(t, db, http.MethodGet, u, "")
		gs, gb := raw(t, res, http.MethodGet, u, "")
		require.Equal(t, http.StatusOK, gs, gb)
		require.Equal(t, ws, gs)
		require.Equal(t, wb, gb)
		if strings.Contains(c.query, "erin") {
			require.Contains(t, gb, `"data":[{`)
		}
		served := server.ResidentServed(rs) - before
		if c.resident {
			require.Equal(t, int64(1), served, "%s from the snapshot", u)
		} else {
			require.Zero(t, served, "%s from the database", u)
		}
	}
}

// TestResidentTranslationsFiledAsTheDatabase: a translation that a
// duplicate string lists before its master is filed under the master in
// the snapshot, as the database's stringId files it, though the loader
// meets it first in the duplicate.
func TestResidentTranslationsFiledAsTheDatabase(t *testing.T) {
	p := demodata.Generate(demodata.Options{Strings: 200, Seed: 7})
	hasDe := func(s *schema.SourceString) bool {
		return slices.ContainsFunc(s.Translations, func(tr schema.Translation) bool { return tr.Language == "de" })
	}
	// x without a German translation before y, a master with one.
	xi, yi := -1, -1
	for i := range p.Strings {
		s := &p.Strings[i]
		if xi < 0 && !hasDe(s) && len(s.Translations) == 0 {
			xi = i
		} else if xi >= 0 && !s.IsDuplicate && hasDe(s) {
			yi = i
			break
		}
	}
	require.True(t, xi >= 0 && yi >= 0)
	x, y := &p.Strings[xi], &p.Strings[yi]
	require.Less(t, x.ID, y.ID)
	var tr schema.Translation
	for _, c := range y.Translations {
		if c.Language == "de" {
			tr = c
			break
		}
	}
	x.IsDuplicate = true
	x.Translations = []schema.Translation{tr}
	res, db, rs, _ := residentPairOf(t, "sqlite", p)
	for _, u := range []string{"/api/v2/projects/1/languages/de/translations?limit=500&withTotal=true",
		"/api/v2/projects/1/languages/de/translations?limit=3&croql=" + url.QueryEscape(`text = "`+tr.Text+`"`)} {
		served := server.ResidentServed(rs)
		ws, wb := raw(t, db, http.MethodGet, u, "")
		gs, gb := raw(t, res, http.MethodGet, u, "")
		require.Equal(t, http.StatusOK, gs, gb)
		require.Equal(t, ws, gs)
		require.Equal(t, wb, gb, u)
		require.Contains(t, gb, fmt.Sprintf(`"stringId":%d`, y.ID))
		require.NotContains(t, gb, fmt.Sprintf(`"stringId":%d,`, x.ID))
		require.Equal(t, served+1, server.ResidentServed(rs), u)
	}
}

// TestTranslationsListDatabaseWalk: the translations list answered by the
// database alone (its strings walked in id order) is the snapshot's
// answer for every combination of paging, total, order and query, and
// keyset paging continues where offset paging would.
func TestTranslationsListDatabaseWalk(t *testing.T) {
	path := listPath(croql.Translations, "de")
	queries := []string{"", `count of approvals > 0`, `text contains "e"`, `pluralForm = "other"`,
		`updated > '2100-01-01'`, `count of votes where (is up) > 0 or user = @user:"alice"`}
	forms := []url.Values{
		{"limit": {"25"}},
		{"limit": {"25"}, "withTotal": {"true"}},
		{"limit": {"7"}, "offset": {"40"}, "withTotal": {"true"}},
		{"limit": {"500"}, "offset": {"300"}},
		{"limit": {"9"}, "offset": {"3"}, "orderBy": {"stringId desc"}, "withTotal": {"true"}},
		{"limit": {"25"}, "offset": {"50000"}, "withTotal": {"1"}},
	}
	for _, engine := range engines(t) {
		t.Run(engine, func(t *testing.T) {
			res, db, rs, _ := residentPair(t, engine)
			for _, src := range queries {
				for _, f := range forms {
					form := url.Values{"croql": {src}}
					for k, v := range f {
						form[k] = v
					}
					u := path + "?" + form.Encode()
					served := server.ResidentServed(rs)
					ws, wb := raw(t, db, http.MethodGet, u, "")
					gs, gb := raw(t, res, http.MethodGet, u, "")
					require.Equal(t, http.StatusOK, ws, wb)
					require.Equal(t, ws, gs, "%s", u)
					require.Equal(t, wb, gb, "%s", u)
					require.Equal(t, served+1, server.ResidentServed(rs), "from the snapshot: %s", u)
				}
				// Keyset paging from the database: the page after the
				// first page's last string is the offset page after it.
				first := trStringIDs(t, db, path+"?"+url.Values{"croql": {src}, "limit": {"25"}}.Encode())
				if len(first) < 25 {
					continue
				}
				want := trStringIDs(t, res, path+"?"+url.Values{"croql": {src}, "limit": {"25"}, "offset": {"25"}}.Encode())
				got := trStringIDs(t, db, path+"?"+url.Values{"croql": {src}, "limit": {"25"}, "afterId": {fmt.Sprint(first[24])}}.Encode())
				require.Equal(t, want, got, src)
			}
		})
	}
}

// trStringIDs is the stringIds of a translations list page.
func trStringIDs(t *testing.T, hs *httptest.Server, u string) []int64 {
	t.Helper()
	st, body := raw(t, hs, http.MethodGet, u, "")
	require.Equal(t, http.StatusOK, st, body)
	var page struct {
		Data []struct {
			Data struct {
				StringID int64 `json:"stringId"`
			} `json:"data"`
		} `json:"data"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &page))
	var out []int64
	for _, d := range page.Data {
		out = append(out, d.Data.StringID)
	}
	return out
}

// TestReadyz: /readyz answers 503 while a project's snapshot is being
// built and 200 once it is resident, or at once when the database serves
// every project (a budget of 0, or one the project does not fit).
func TestReadyz(t *testing.T) {
	ctx := context.Background()
	p := demodata.Generate(demodata.Options{Strings: 200, Seed: 7})
	st, err := server.LoadSQLite(ctx, t.TempDir(), p)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, st.Close()) })
	proj, ok := st.Project(1)
	require.True(t, ok)
	release := make(chan struct{})
	proj.Source = func(ctx context.Context, _ int64) (*schema.Project, error) {
		select {
		case <-release:
			return p, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	toks := &server.Tokens{}
	require.NoError(t, toks.Add(token))
	readyz := func(srv *server.Server) (int, string) {
		hs := httptestServer(t, srv)
		resp, err := hs.Client().Get(hs.URL + "/readyz") // no token: a probe's request
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, string(b)
	}
	srv, err := server.New(server.Config{Storage: st, Tokens: toks, Now: clock, ResidentMaxBytes: 1 << 30})
	require.NoError(t, err)
	code, body := readyz(srv)
	require.Equal(t, http.StatusServiceUnavailable, code)
	require.JSONEq(t, `{"status":"starting","projects":{"resident":0,"database":0,"pending":1}}`, body)
	built := make(chan error, 1)
	go func() {
		_, err := srv.BuildResident(ctx)
		built <- err
	}()
	code, _ = readyz(srv)
	require.Equal(t, http.StatusServiceUnavailable, code, "the snapshot is still being read")
	close(release)
	require.NoError(t, <-built)
	code, body = readyz(srv)
	require.Equal(t, http.StatusOK, code)
	require.JSONEq(t, `{"status":"ready","projects":{"resident":1,"database":0,"pending":0}}`, body)

	for _, budget := range []int64{0, 1 << 10} {
		srv, err := server.New(server.Config{Storage: st, Tokens: toks, Now: clock, ResidentMaxBytes: budget})
		require.NoError(t, err)
		n, err := srv.BuildResident(ctx)
		require.NoError(t, err)
		require.Zero(t, n)
		code, body := readyz(srv)
		require.Equal(t, http.StatusOK, code, "budget %d", budget)
		require.JSONEq(t, `{"status":"ready","projects":{"resident":0,"database":1,"pending":0}}`, body)
	}
}

// TestTotalFromElements: a total the database counts from the elements'
// side (a croql that is "some element of C matches P", C the elements of
// the list's objects in a table of their own) is the snapshot's total; so
// is the total of the translations
// list, whose language and branchId conditions stand beside the croql and
// keep the count over the list's rows.
func TestTotalFromElements(t *testing.T) {
	strs, tm, trs := listPath(croql.Strings, "de"), listPath(croql.TM, "de"), listPath(croql.Translations, "de")
	type query struct {
		path string
		form url.Values
	}
	var queries []query
	for _, c := range []struct{ path, src string }{
		{strs, `count of comments where (user = @user:"alice") > 0`},
		{strs, `comments with (has issue)`},
		{strs, `count of comments > 0`},
		{strs, `count of languages summary where (translation updated between '2020-01-01 00:00:00' and '2030-01-01 00:00:00') > 0`},
		{tm, `count of records where (usageCount > 0) > 0`},
		{tm, `count of records where (createdBy = @user:"alice") > 0`},
		{tm, `records with (usageCount > 3 and createdBy = @user:"bob")`},
		{trs, `count of votes where (is up) > 0`},
	} {
		queries = append(queries, query{c.path, url.Values{"croql": {c.src}}})
	}
	queries = append(queries, query{trs, url.Values{"croql": {`count of votes where (is up) > 0`}, "branchId": {"2"}}})
	for _, engine := range engines(t) {
		if engine == "mysql" {
			continue // the same code path; PostgreSQL and SQLite cover it
		}
		t.Run(engine, func(t *testing.T) {
			res, db, _, _ := residentPair(t, engine)
			for _, q := range queries {
				for _, extra := range []url.Values{{"limit": {"5"}}, {"limit": {"3"}, "offset": {"20"}}} {
					form := url.Values{"withTotal": {"true"}}
					for k, v := range q.form {
						form[k] = v
					}
					for k, v := range extra {
						form[k] = v
					}
					u := q.path + "?" + form.Encode()
					ws, wb := raw(t, db, http.MethodGet, u, "")
					gs, gb := raw(t, res, http.MethodGet, u, "")
					require.Equal(t, http.StatusOK, ws, "%s: %s", u, wb)
					require.Equal(t, ws, gs, "%s", u)
					require.Equal(t, wb, gb, "%s", u)
				}
			}
		})
	}
}
