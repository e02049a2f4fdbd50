package server_test

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/croql/croql/server"
)

// fieldErrors returns the key and the errors of a 400 body.
func fieldErrors(t *testing.T, body map[string]any) (string, []map[string]any) {
	t.Helper()
	errs, ok := body["errors"].([]any)
	require.True(t, ok, "no errors list: %v", body)
	require.Len(t, errs, 1, "%v", body)
	e := errs[0].(map[string]any)["error"].(map[string]any)
	var out []map[string]any
	for _, x := range e["errors"].([]any) {
		out = append(out, x.(map[string]any))
	}
	require.NotEmpty(t, out)
	return e["key"].(string), out
}

// platformError returns the code and message of a {"error":{…}} body.
func platformError(t *testing.T, body map[string]any) (float64, string) {
	t.Helper()
	e, ok := body["error"].(map[string]any)
	require.True(t, ok, "no error object: %v", body)
	return e["code"].(float64), e["message"].(string)
}

func getRaw(t *testing.T, hs *httptest.Server, pathAndQuery, auth string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, hs.URL+pathAndQuery, nil)
	require.NoError(t, err)
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	return do(t, hs, req)
}

func TestCroqlErrors(t *testing.T) {
	hs := serve(t, "sqlite", server.Config{}, demo(t))
	const strs = "/api/v2/projects/1/strings"
	for _, c := range []struct {
		name, query, code, rule string
		start, end              float64
	}{
		{"syntax", "id in (2516, 2518)", "croqlInvalidSyntax", "", -1, -1},
		{"double equals", "identifier == \"a\"", "croqlInvalidSyntax", "double-equals", 11, 13},
		{"unknown field", "is hiden and count of translations > 0", "croqlInvalidLogic", "unknown-field", 0, 8},
		{"not boolean", "count of translations", "croqlInvalidLogic", "", -1, -1},
		{"unknown user", `count of comments where (user = @user:"nobody") > 0`, "croqlInvalidLogic", "", -1, -1},
		{"over the length limit", strings.Repeat("is hidden or ", 6000) + "is hidden", "croqlInvalidSyntax", "", -1, -1},
		{"too deep", strings.Repeat("(", 500) + "is hidden" + strings.Repeat(")", 500), "croqlInvalidSyntax", "", -1, -1},
	} {
		t.Run(c.name, func(t *testing.T) {
			status, body := get(t, hs, strs, url.Values{"croql": {c.query}})
			require.Equal(t, http.StatusBadRequest, status, "%v", body)
			key, errs := fieldErrors(t, body)
			require.Equal(t, "croql", key)
			require.Equal(t, c.code, errs[0]["code"])
			require.NotEmpty(t, errs[0]["message"])
			span := errs[0]["span"].(map[string]any)
			require.LessOrEqual(t, span["start"].(float64), span["end"].(float64))
			require.LessOrEqual(t, span["end"].(float64), float64(len(c.query)))
			require.GreaterOrEqual(t, errs[0]["line"].(float64), float64(1))
			if c.rule != "" {
				require.Equal(t, c.rule, errs[0]["rule"])
			}
			if c.start >= 0 {
				require.Equal(t, c.start, span["start"])
				require.Equal(t, c.end, span["end"])
			}
		})
	}
	t.Run("invalid UTF-8", func(t *testing.T) {
		status, body := getRaw(t, hs, strs+"?croql=text+contains+%22%FF%FE%22", "Bearer "+token)
		require.Equal(t, http.StatusBadRequest, status)
		key, errs := fieldErrors(t, body)
		require.Equal(t, "croql", key)
		require.Equal(t, "croqlInvalidSyntax", errs[0]["code"])
		require.Equal(t, "invalid-utf8", errs[0]["rule"])
		require.Equal(t, float64(15), errs[0]["span"].(map[string]any)["start"])
	})
	t.Run("every error is listed", func(t *testing.T) {
		status, body := get(t, hs, strs, url.Values{"croql": {"is hiden and fileId = 5"}})
		require.Equal(t, http.StatusBadRequest, status)
		_, errs := fieldErrors(t, body)
		require.Len(t, errs, 2)
	})
	t.Run("wrong context", func(t *testing.T) {
		// usageCount is a TM record field, not a translation's.
		status, body := get(t, hs, "/api/v2/projects/1/languages/de/translations", url.Values{"croql": {"usageCount > 0"}})
		require.Equal(t, http.StatusBadRequest, status)
		_, errs := fieldErrors(t, body)
		require.Equal(t, "croqlInvalidLogic", errs[0]["code"])
	})
}

func TestOverCost(t *testing.T) {
	hs := serve(t, "sqlite", server.Config{MaxCost: 50}, demo(t))
	q := `count of translations where (count of votes where (is up) > count of approvals) > 0`
	status, body := get(t, hs, "/api/v2/projects/1/strings", url.Values{"croql": {q}})
	require.Equal(t, http.StatusBadRequest, status, "%v", body)
	key, errs := fieldErrors(t, body)
	require.Equal(t, "croql", key)
	require.Equal(t, "croqlInvalidLogic", errs[0]["code"])
	require.Equal(t, "too-costly", errs[0]["rule"])
	// A cheap query passes the same budget.
	status, body = get(t, hs, "/api/v2/projects/1/strings", url.Values{"croql": {"is hidden"}})
	require.Equal(t, http.StatusOK, status, "%v", body)
}

func TestTimeout(t *testing.T) {
	// A deadline that has passed before the query starts: 503, not 500.
	hs := serve(t, "sqlite", server.Config{Timeout: time.Nanosecond}, demo(t))
	status, body := get(t, hs, "/api/v2/projects/1/strings", url.Values{"croql": {"is hidden"}})
	require.Equal(t, http.StatusServiceUnavailable, status, "%v", body)
	code, msg := platformError(t, body)
	require.Equal(t, float64(503), code)
	require.Contains(t, msg, "statement timeout")
}

func TestTokensNeverLogged(t *testing.T) {
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	hs := serve(t, "sqlite", server.Config{Logger: log}, demo(t))
	for _, auth := range []string{"Bearer " + token, "Bearer not-the-token-xyz"} {
		getRaw(t, hs, "/api/v2/projects/1/strings?croql=is+hidden", auth)
		getRaw(t, hs, "/api/v2/projects/1/strings?croql=is+hiden", auth)
	}
	require.Contains(t, logs.String(), "/api/v2/projects/1/strings", "requests are logged")
	require.NotContains(t, logs.String(), token)
	require.NotContains(t, logs.String(), "not-the-token-xyz")
}

func TestParameterErrors(t *testing.T) {
	hs := serve(t, "sqlite", server.Config{}, demo(t))
	const strs = "/api/v2/projects/1/strings"
	for _, c := range []struct {
		query, key, code string
	}{
		{"limit=0", "limit", "notBetween"},
		{"limit=501", "limit", "notBetween"},
		{"limit=-1", "limit", "notDigits"},
		{"limit=abc", "limit", "notDigits"},
		{"limit=", "limit", "notDigits"},
		{"limit=99999999999999999999999", "limit", "notDigits"},
		{"limit=1e2", "limit", "notDigits"},
		{"offset=-1", "offset", "notDigits"},
		{"offset=x", "offset", "notDigits"},
		{"offset=1&offset=2", "offset", "duplicate"},
		{"orderBy=nope", "orderBy", "notInArray"},
		{"orderBy=text+sideways", "orderBy", "invalidOrderBy"},
		{"withTotal=maybe", "withTotal", "notBoolean"},
		{"croql=%zz", "query", "malformed"},
	} {
		t.Run(c.query, func(t *testing.T) {
			status, body := getRaw(t, hs, strs+"?"+c.query, "Bearer "+token)
			require.Equal(t, http.StatusBadRequest, status, "%v", body)
			key, errs := fieldErrors(t, body)
			require.Equal(t, c.key, key)
			require.Equal(t, c.code, errs[0]["code"])
			require.NotEmpty(t, errs[0]["message"])
		})
	}
	// The bounds themselves are accepted.
	for _, q := range []string{"limit=1", "limit=500", "offset=0", "offset=100000000"} {
		status, body := getRaw(t, hs, strs+"?"+q, "Bearer "+token)
		require.Equal(t, http.StatusOK, status, "%s: %v", q, body)
	}
}

func TestAuth(t *testing.T) {
	p := demo(t)
	toks, err := server.ReadTokenFile(strings.NewReader("# token projects\nall-projects *\nonly-two 2\n"))
	require.NoError(t, err)
	hs := serve(t, "sqlite", server.Config{Tokens: toks}, p, p)
	for _, auth := range []string{"", "Bearer", "Bearer ", "Bearer wrong", "Basic all-projects", "all-projects", "Bearer all-projects-and-more"} {
		status, body := getRaw(t, hs, "/api/v2/projects/1/strings", auth)
		require.Equal(t, http.StatusUnauthorized, status, "auth %q", auth)
		code, msg := platformError(t, body)
		require.Equal(t, float64(401), code)
		require.Equal(t, "Unauthorized", msg)
	}
	// Unknown paths are 401 too without a token: they tell nothing.
	status, _ := getRaw(t, hs, "/api/v2/nothing", "")
	require.Equal(t, http.StatusUnauthorized, status)

	// The scheme is case-insensitive, as the seed writes it (`bearer`).
	status, _ = getRaw(t, hs, "/api/v2/projects/1/strings", "bearer all-projects")
	require.Equal(t, http.StatusOK, status)

	// A project the token may not read is 404, as an unknown one.
	for _, path := range []string{"/api/v2/projects/1", "/api/v2/projects/1/strings", "/api/v2/projects/1/languages/de/translations", "/api/v2/tms/1/segments", "/api/v2/glossaries/1/terms"} {
		status, body := getRaw(t, hs, path, "Bearer only-two")
		require.Equal(t, http.StatusNotFound, status, path)
		code, _ := platformError(t, body)
		require.Equal(t, float64(404), code)
		status, _ = getRaw(t, hs, strings.Replace(path, "/1", "/2", 1), "Bearer only-two")
		require.Equal(t, http.StatusOK, status, path)
	}
	status, body := getRaw(t, hs, "/api/v2/projects", "Bearer only-two")
	require.Equal(t, http.StatusOK, status)
	data := body["data"].([]any)
	require.Len(t, data, 1)
	require.Equal(t, float64(2), data[0].(map[string]any)["data"].(map[string]any)["id"])
}

func TestNotFound(t *testing.T) {
	hs := serve(t, "sqlite", server.Config{}, demo(t))
	for _, c := range []struct{ path, message string }{
		{"/api/v2/projects/99", "Project Not Found"},
		{"/api/v2/projects/0/strings", "Project Not Found"},
		{"/api/v2/projects/abc/strings", "Project Not Found"},
		{"/api/v2/projects/01/strings", "Project Not Found"},
		{"/api/v2/projects/99999999999999999999/strings", "Project Not Found"},
		{"/api/v2/projects/1/languages/xx/translations", "Language Not Found"},
		{"/api/v2/projects/1/languages/%FF/translations", "Language Not Found"},
		{"/api/v2/tms/2/segments", "Translation Memory Not Found"},
		{"/api/v2/glossaries/-1/terms", "Glossary Not Found"},
		{"/api/v2/projects/1/nothing", "Resource Not Found"},
		{"/api/v3/projects", "Resource Not Found"},
		// Paths not in clean form are 404s, not the mux's redirect to
		// another resource (found by FuzzServe: an empty language id).
		{"/api/v2/projects/1/languages//translations", "Resource Not Found"},
		{"/api/v2/projects/1/./strings", "Resource Not Found"},
		{"/api/v2//projects", "Resource Not Found"},
	} {
		status, body := getRaw(t, hs, c.path, "Bearer "+token)
		require.Equal(t, http.StatusNotFound, status, c.path)
		code, msg := platformError(t, body)
		require.Equal(t, float64(404), code)
		require.Equal(t, c.message, msg, c.path)
	}
}

func TestExtensions(t *testing.T) {
	p := demo(t)
	hs := serve(t, "sqlite", server.Config{}, p)
	const strs = "/api/v2/projects/1/strings"
	q := `count of translations > 0`
	want := evalIDs(t, p, "strings", "", q)

	t.Run("withTotal", func(t *testing.T) {
		status, body := get(t, hs, strs, url.Values{"croql": {q}, "withTotal": {"true"}, "limit": {"3"}})
		require.Equal(t, http.StatusOK, status)
		require.Equal(t, float64(len(want)), body["pagination"].(map[string]any)["total"])
		status, body = get(t, hs, strs, url.Values{"croql": {q}})
		require.Equal(t, http.StatusOK, status)
		_, has := body["pagination"].(map[string]any)["total"]
		require.False(t, has, "total only when asked for")
	})
	t.Run("orderBy", func(t *testing.T) {
		status, body := get(t, hs, strs, url.Values{"croql": {q}, "orderBy": {"identifier desc, id"}, "limit": {"500"}})
		require.Equal(t, http.StatusOK, status)
		var idents []string
		for _, d := range body["data"].([]any) {
			idents = append(idents, d.(map[string]any)["data"].(map[string]any)["identifier"].(string))
		}
		require.Len(t, idents, len(want))
		for i := 1; i < len(idents); i++ {
			require.GreaterOrEqual(t, idents[i-1], idents[i])
		}
	})
	t.Run("POST query", func(t *testing.T) {
		long := "identifier = \"none\"" + strings.Repeat(" or identifier = \"none\"", 3000) + " or " + q
		require.Greater(t, len(long), 64<<10-1000)
		body := `{"croql":` + jsonString(long[:min(len(long), 60<<10)]) + `,"limit":500,"withTotal":true}`
		req, err := http.NewRequest(http.MethodPost, hs.URL+strs+"/query", bytes.NewBufferString(body))
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		status, resp := do(t, hs, req)
		require.Equal(t, http.StatusBadRequest, status, "cut mid-way: the query does not parse")
		key, _ := fieldErrors(t, resp)
		require.Equal(t, "croql", key)

		long = strings.Repeat("identifier = \"none\" or ", 900) + q
		body = `{"croql":` + jsonString(long) + `,"limit":500,"withTotal":true}`
		req, err = http.NewRequest(http.MethodPost, hs.URL+strs+"/query", bytes.NewBufferString(body))
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+token)
		status, resp = do(t, hs, req)
		require.Equal(t, http.StatusOK, status, "%v", resp)
		var ids []int64
		for _, d := range resp["data"].([]any) {
			ids = append(ids, int64(d.(map[string]any)["data"].(map[string]any)["id"].(float64)))
		}
		require.Equal(t, want, ids)
		require.Equal(t, float64(len(want)), resp["pagination"].(map[string]any)["total"])
	})
	t.Run("engine limit", func(t *testing.T) {
		// SQLite refuses an expression tree deeper than 1000. The
		// compiler writes an or-chain as flat lists (and an equality
		// chain on one column as IN lists), so a 1,200-term chain, which
		// SQLite refused when it was nested, runs; an engine's own limit
		// that is still met is a 400 of rule engine-limit (server/list.go).
		long := strings.Repeat("identifier = \"none\" or text = \"none\" or ", 600) + q
		body := `{"croql":` + jsonString(long) + `,"limit":500}`
		req, err := http.NewRequest(http.MethodPost, hs.URL+strs+"/query", bytes.NewBufferString(body))
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+token)
		status, resp := do(t, hs, req)
		require.Equal(t, http.StatusOK, status, "%v", resp)
		var ids []int64
		for _, d := range resp["data"].([]any) {
			ids = append(ids, int64(d.(map[string]any)["data"].(map[string]any)["id"].(float64)))
		}
		require.Equal(t, want, ids)
	})
	t.Run("POST errors", func(t *testing.T) {
		for _, c := range []struct{ body, key string }{
			{`not json`, "body"},
			{`[1]`, "body"},
			{`{"croql": 5}`, "croql"},
			{`{"limit": "5"}`, "limit"},
			{`{"limit": 0}`, "limit"},
			{`{"limit": 2.5}`, "limit"},
			{`{"offset": -3}`, "offset"},
			{`{"withTotal": "yes"}`, "withTotal"},
			{`{"filter": "x"}`, "filter"},
			{`{"croql": "is hiden"}`, "croql"},
			{`{"croql": "` + strings.Repeat("a", 2<<20) + `"}`, "body"},
		} {
			req, err := http.NewRequest(http.MethodPost, hs.URL+strs+"/query", strings.NewReader(c.body))
			require.NoError(t, err)
			req.Header.Set("Authorization", "Bearer "+token)
			status, resp := do(t, hs, req)
			require.Equal(t, http.StatusBadRequest, status, "%.80s: %v", c.body, resp)
			key, _ := fieldErrors(t, resp)
			require.Equal(t, c.key, key, c.body[:min(len(c.body), 80)])
		}
	})
}

// TestEngineLimits: statements deeper than an engine takes (SQLite's
// expression depth and recursion limit, the parser stacks of PostgreSQL
// and MariaDB) are a 400 under croql with rule engine-limit, never a 500;
// an engine that takes one answers what the evaluator does. The xor chain
// is compiled as a balanced tree and the run of nots as one NOT, so every
// engine takes those.
func TestEngineLimits(t *testing.T) {
	p := demo(t)
	queries := []string{
		strings.Repeat("maxLength + ", 1100) + "1 > 0",
		strings.Repeat("maxLength * ", 1100) + "1 > 0",
		strings.Repeat("-", 1100) + "maxLength > 0",
		strings.Repeat("not ", 1100) + "is hidden",
		strings.Repeat("is hidden xor ", 1100) + "is hidden",
	}
	for _, eng := range engines(t) {
		t.Run(eng, func(t *testing.T) {
			hs := serve(t, eng, server.Config{MaxCost: -1}, p)
			limited := 0
			for _, q := range queries {
				body := `{"croql":` + jsonString(q) + `,"limit":500}`
				req, err := http.NewRequest(http.MethodPost, hs.URL+"/api/v2/projects/1/strings/query", strings.NewReader(body))
				require.NoError(t, err)
				req.Header.Set("Authorization", "Bearer "+token)
				status, resp := do(t, hs, req)
				switch status {
				case http.StatusBadRequest:
					key, errs := fieldErrors(t, resp)
					require.Equal(t, "croql", key)
					require.Equal(t, "engine-limit", errs[0]["rule"], "%.40s", q)
					require.NotContains(t, q, "xor", "an xor chain is a balanced tree in SQL: every engine takes it")
					require.False(t, strings.HasPrefix(q, "not "), "a run of nots is one NOT or none in SQL: every engine takes it")
					limited++
				case http.StatusOK:
					var ids []int64
					for _, d := range resp["data"].([]any) {
						ids = append(ids, int64(d.(map[string]any)["data"].(map[string]any)["id"].(float64)))
					}
					want := evalIDs(t, p, "strings", "", q)
					if len(want) == 0 {
						want = nil
					}
					require.Equal(t, want, ids, "%.40s", q)
				default:
					t.Fatalf("%.40s: status %d: %v", q, status, resp)
				}
			}
			// Every engine refuses the 1100-term arithmetic chains.
			require.GreaterOrEqual(t, limited, 2)
		})
	}
}

// TestUnrepresentable: a literal PostgreSQL cannot bind (NUL) is a 400
// under croql with rule sql there, and an ordinary query elsewhere.
func TestUnrepresentable(t *testing.T) {
	for _, eng := range engines(t) {
		t.Run(eng, func(t *testing.T) {
			hs := serve(t, eng, server.Config{}, demo(t))
			status, body := get(t, hs, "/api/v2/projects/1/strings", url.Values{"croql": {"text contains \"a\x00b\""}})
			if eng != "postgres" {
				require.Equal(t, http.StatusOK, status, "%v", body)
				return
			}
			require.Equal(t, http.StatusBadRequest, status, "%v", body)
			key, errs := fieldErrors(t, body)
			require.Equal(t, "croql", key)
			require.Equal(t, "sql", errs[0]["rule"])
			// On the literal PostgreSQL cannot hold, not on the whole query.
			require.Equal(t, map[string]any{"start": 14.0, "end": 19.0}, errs[0]["span"])
			require.Contains(t, errs[0]["message"], "this server's postgres database")
		})
	}
}
