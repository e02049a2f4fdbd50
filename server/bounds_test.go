package server_test

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/server"
)

// freshDemo is a copy of the demo project of its own, to change.
func freshDemo(t testing.TB) *schema.Project {
	t.Helper()
	p, err := readDemo()
	require.NoError(t, err)
	return p
}

// postQuery sends POST …/strings/query with the JSON body body and
// returns the status and the raw answer.
func postQuery(t testing.TB, c *http.Client, base string, body map[string]any) (int, []byte) {
	t.Helper()
	b, err := json.Marshal(body)
	require.NoError(t, err)
	req, err := http.NewRequest(http.MethodPost, base+"/api/v2/projects/1/strings/query", bytes.NewReader(b))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var out bytes.Buffer
	_, err = out.ReadFrom(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, out.Bytes()
}

// TestHugeContainsEndsAtTheDeadlineSQLite: one 30 MB string and a
// contains whose needle is 60,000 a's and a b. SQLite's instr took the
// product of the lengths (over 40 s here) in one step its interrupt could not
// stop; croql_contains is linear, so the request answers (here: no match)
// well within the statement timeout.
func TestHugeContainsEndsAtTheDeadlineSQLite(t *testing.T) {
	p := freshDemo(t)
	p.Strings[0].Text = strings.Repeat("a", 30<<20)
	for _, fold := range []bool{false, true} {
		t.Run(fmt.Sprintf("fold=%v", fold), func(t *testing.T) { testHugeContains(t, p, fold) })
	}
}

func testHugeContains(t *testing.T, p *schema.Project, fold bool) {
	const timeout = 3 * time.Second
	// No cost budgets (per object or per request): this is about the
	// engine's deadline, not about what the cost model refuses before a
	// query runs (TestLongTextContains shows the request budget refusing
	// such a contains).
	hs := serve(t, "sqlite", server.Config{Timeout: timeout, MaxCost: -1, MaxRequestCost: -1,
		Options: []croql.Option{croql.WithFoldContains(fold)}}, p)
	for _, src := range []string{
		`text contains "` + strings.Repeat("a", 60000) + `b"`,
		`identifier contains "x" or text contains "` + strings.Repeat("a", 60000) + `b"`,
	} {
		start := time.Now()
		status, body := postQuery(t, hs.Client(), hs.URL, map[string]any{"croql": src, "limit": 25})
		took := time.Since(start)
		t.Logf("%.30s… (%d bytes): %d in %s", src, len(src), status, took.Round(time.Millisecond))
		assert.Less(t, took, timeout+time.Second, "the request ran past its deadline")
		if status == http.StatusServiceUnavailable {
			assert.Contains(t, string(body), "statement timeout")
			continue
		}
		require.Equal(t, http.StatusOK, status, "%s", body[:min(len(body), 300)])
		assert.NotContains(t, string(body), `"id":`+itoa(int(p.Strings[0].ID))+`,`, "the 30 MB string has no b")
	}
	// The needle found: the 30 MB string matches. This is about the
	// answer, not the deadline, so it runs on a server whose timeout no
	// busy machine reaches (the search above may take longer than 3 s
	// under load, and its 503 is then the right answer there).
	slow := serve(t, "sqlite", server.Config{Timeout: 10 * time.Minute, MaxCost: -1, MaxRequestCost: -1,
		Options: []croql.Option{croql.WithFoldContains(fold)}}, p)
	needle := strings.Repeat("a", 60000)
	if fold {
		needle = strings.Repeat("A", 60000)
	}
	status, body := postQuery(t, slow.Client(), slow.URL, map[string]any{"croql": `text contains "` + needle + `"`, "limit": 1})
	require.Equal(t, http.StatusOK, status)
	var page struct {
		Data []struct {
			Data struct {
				ID int64 `json:"id"`
			} `json:"data"`
		} `json:"data"`
	}
	require.NoError(t, json.Unmarshal(body, &page))
	require.Len(t, page.Data, 1)
	assert.Equal(t, p.Strings[0].ID, page.Data[0].Data.ID)
}

// TestPageByteBudget: a list answer is never larger than MaxPageBytes; a
// page that would be is a 400 under limit that says how many objects
// fit, and with that limit the page is served; an object larger than the
// budget alone cannot be listed.
func TestPageByteBudget(t *testing.T) {
	for _, engine := range engines(t) {
		t.Run(engine, func(t *testing.T) {
			p := freshDemo(t)
			slices.SortFunc(p.Strings, func(a, b schema.SourceString) int { return cmp.Compare(a.ID, b.ID) })
			const mb = 1 << 20
			for i := range 5 {
				p.Strings[i].Text = strings.Repeat(string(rune('a'+i)), mb)
			}
			p.Strings[6].Text = strings.Repeat("z", 4*mb)
			const budget = 3*mb + mb/2
			hs := serve(t, engine, server.Config{MaxPageBytes: budget}, p)
			page := func(q url.Values) (int, []byte) { return getBytes(t, hs, "/api/v2/projects/1/strings", q) }
			for _, q := range []url.Values{{"limit": {"25"}}, {"limit": {"500"}}, {"limit": {"4"}}} {
				status, body := page(q)
				require.Equal(t, http.StatusBadRequest, status, "%.300s", body)
				assert.LessOrEqual(t, len(body), budget)
				assert.Contains(t, string(body), `"key":"limit"`)
				assert.Contains(t, string(body), "page budget of 3670016 bytes (--max-page-bytes): its first 3 objects fit; ask for limit=3 or less")
			}
			status, body := page(url.Values{"limit": {"3"}})
			require.Equal(t, http.StatusOK, status, "%.300s", body)
			assert.LessOrEqual(t, len(body), budget)
			assert.Greater(t, len(body), 3*mb)
			// Further on, the page is served with what fits.
			status, body = page(url.Values{"limit": {"3"}, "offset": {"3"}})
			require.Equal(t, http.StatusOK, status, "%.300s", body)
			assert.LessOrEqual(t, len(body), budget)
			// The 4 MB string alone.
			status, body = page(url.Values{"limit": {"1"}, "offset": {"6"}})
			require.Equal(t, http.StatusBadRequest, status, "%.300s", body)
			assert.Contains(t, string(body), "the first object of this page alone is larger than the server's page budget")
			// A single object is not a page: it is answered whole.
			status, body = getBytes(t, hs, "/api/v2/projects/1/strings/"+strconv.FormatInt(p.Strings[6].ID, 10), nil)
			require.Equal(t, http.StatusOK, status, "%.300s", body)
			assert.Greater(t, len(body), 4*mb)
			// Many small objects: the whole page fits.
			status, body = page(url.Values{"limit": {"500"}, "offset": {"7"}})
			require.Equal(t, http.StatusOK, status, "%.300s", body)
		})
	}
}

// TestTranslationsPageByteBudget: the translations list keeps the budget
// too: its page over the budget is a 400 whose suggested limit is served
// within it, in string order either way and in another order.
func TestTranslationsPageByteBudget(t *testing.T) {
	for _, engine := range engines(t) {
		t.Run(engine, func(t *testing.T) {
			p := freshDemo(t)
			const mb = 1 << 20
			big := 0
			for i := range p.Strings {
				for j := range p.Strings[i].Translations {
					if tr := &p.Strings[i].Translations[j]; tr.Language == "de" && tr.PluralForm == "none" && big < 8 {
						tr.Text = strings.Repeat("ü", mb/2) // 1 MiB of UTF-8
						big++
					}
				}
			}
			require.Equal(t, 8, big)
			const budget = 3*mb + mb/2
			hs := serve(t, engine, server.Config{MaxPageBytes: budget}, p)
			fitRE := regexp.MustCompile(`ask for limit=(\d+) or less`)
			for _, q := range []url.Values{{}, {"orderBy": {"stringId desc"}}, {"orderBy": {"text"}}} {
				q.Set("limit", "500")
				status, body := getBytes(t, hs, "/api/v2/projects/1/languages/de/translations", q)
				require.Equal(t, http.StatusBadRequest, status, "%v: %.300s", q, body)
				m := fitRE.FindSubmatch(body)
				require.NotNil(t, m, "%v: %s", q, body)
				q.Set("limit", string(m[1]))
				status, body = getBytes(t, hs, "/api/v2/projects/1/languages/de/translations", q)
				require.Equal(t, http.StatusOK, status, "%v: %.300s", q, body)
				assert.LessOrEqual(t, len(body), budget, "%v", q)
			}
		})
	}
}

// getBytes sends a GET with the test token and returns the status and the
// body as it came.
func getBytes(t testing.TB, hs *httptest.Server, path string, q url.Values) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, hs.URL+path+"?"+q.Encode(), nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := hs.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, b
}
