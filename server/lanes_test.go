package server_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	gen "github.com/croql/croql/demo"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/server"
)

// heavyQuery is a three-deep nested `where`: each level reads the
// string's translations again, so the engines visit translations³ rows
// per string.
const heavyQuery = `count of translations where (count of translations where (count of translations where (text contains "zq") < 2) > 1) > 1`

// heavyProject is a generated project of n strings with per translations
// each (copies of the generated ones under new ids).
func heavyProject(n, per int) *schema.Project {
	p := gen.Generate(gen.Options{Strings: n, Seed: 1})
	id := int64(1 << 30)
	for i := range p.Strings {
		s := &p.Strings[i]
		base := slices.Clone(s.Translations)
		if len(base) == 0 {
			continue
		}
		for len(s.Translations) < per {
			t := base[len(s.Translations)%len(base)]
			id++
			t.ID = id
			s.Translations = append(s.Translations, t)
		}
	}
	return p
}

// getAs sends a GET with token and returns the status, or an error.
func getAs(ctx context.Context, u, tok string) (int, error) {
	code, _, err := getTimed(ctx, u, tok)
	return code, err
}

// getTimed is getAs that also returns the answer's Server-Timing header.
func getTimed(ctx context.Context, u, tok string) (int, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", err
	}
	res.Body.Close()
	return res.StatusCode, res.Header.Get("Server-Timing"), nil
}

// atOnce is the Server-Timing of a list request that took a free place
// in the cheap lane without waiting.
const atOnce = `lane;desc="cheap";dur=0`

// connWaits is how many times project 1's connection pool made a request
// wait for a connection (database/sql's WaitCount, in /metrics).
func connWaits(t *testing.T, base string) float64 {
	t.Helper()
	return gauge(t, base, `go_sql_wait_count_total{db_name="project-1"}`)
}

// TestCheapRequestsBesideExpensive: while 32 expensive requests that the
// request budget accepts are in flight (one running, the others waiting
// in the expensive lane), 100 cheap requests each take a free place in
// the cheap lane at once (their Server-Timing says they waited 0 ms) and
// no request waits for a database connection, on every engine: the
// expensive lane runs one request at a time with its own connections, so
// a cheap request never queues behind an expensive one. The latencies
// are logged, not bounded: a bound on a shared 2-CPU machine measures the
// machine (.ci/run's fairness section runs the test alone for its log;
// docs/performance.md has figures).
func TestCheapRequestsBesideExpensive(t *testing.T) {
	if raceDetector {
		t.Skip("32 expensive requests under the race detector take the machine")
	}
	p := heavyProject(40, 400)
	for _, eng := range engines(t) {
		t.Run(eng, func(t *testing.T) {
			toks := &server.Tokens{}
			require.NoError(t, toks.Add("heavy"))
			require.NoError(t, toks.Add("light"))
			require.NoError(t, toks.Add(token)) // metricsText's
			// On this small project the heavy query's estimate is far
			// under the default cheap cost; CheapCost sends it to the
			// expensive lane as a large project would.
			hs := serve(t, eng, server.Config{Tokens: toks, Timeout: time.Minute, CheapCost: 1e6, ExpensiveLane: 1, CheapLane: 4}, p)
			// withTotal: the count of every match, in the whole-set forms, which
			// no engine stops early on (a page alone may end at its first rows).
			heavy := hs.URL + "/api/v2/projects/1/strings?limit=25&withTotal=true&croql=" + url.QueryEscape(heavyQuery)
			cheap := hs.URL + "/api/v2/projects/1/strings?limit=1"

			measure := func() (median, p99, worst time.Duration) {
				var lat []time.Duration
				for range 100 {
					start := time.Now()
					code, timing, err := getTimed(context.Background(), cheap, "light")
					lat = append(lat, time.Since(start))
					require.NoError(t, err)
					require.Equal(t, http.StatusOK, code)
					require.Equal(t, atOnce, timing, "a cheap request took a free place at once")
				}
				slices.Sort(lat)
				return lat[50], lat[98], lat[99]
			}
			// The same requests alone, for the log: what the machine's
			// load costs them without expensive requests.
			median, p99, worst := measure()
			t.Logf("%s: 100 cheap requests alone: median %v, p99 %v, max %v", eng, median, p99, worst)
			waits := connWaits(t, hs.URL)

			ctx, cancel := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			var answered atomic.Int32
			for range 32 {
				wg.Add(1)
				// Each keeps one expensive request in flight until the
				// end: one that answers is sent again at once.
				go func() {
					defer wg.Done()
					for ctx.Err() == nil {
						code, timing, err := getTimed(ctx, heavy, "heavy")
						if err == nil {
							answered.Add(1)
							assert.Equal(t, http.StatusOK, code)
							assert.True(t, strings.HasPrefix(timing, `lane;desc="expensive";dur=`), timing)
						}
					}
				}()
			}
			t.Cleanup(func() { cancel(); wg.Wait() })
			// Wait until the expensive lane is full and 31 wait.
			require.Eventually(t, func() bool { return gauge(t, hs.URL, `croql_lane_queued{lane="expensive"}`) == 31 },
				10*time.Second, 10*time.Millisecond, "the 32 expensive requests are admitted: one runs, 31 wait")
			median, p99, worst = measure()
			t.Logf("%s: 100 cheap requests beside 32 expensive: median %v, p99 %v, max %v; expensive answered meanwhile: %d",
				eng, median, p99, worst, answered.Load())
			assert.Equal(t, 1.0, gauge(t, hs.URL, `croql_lane_running{lane="expensive"}`), "an expensive request still runs")
			// An expensive request that answered was sent again at once:
			// the lane stays full (a resend may be between the two).
			assert.GreaterOrEqual(t, gauge(t, hs.URL, `croql_lane_queued{lane="expensive"}`), 30.0, "the expensive requests still wait")
			assert.NotContains(t, metricsText(t, hs.URL), "croql_lane_refused_total", "no request was refused")
			assert.Equal(t, waits, connWaits(t, hs.URL), "no request waited for a database connection")
		})
	}
}

// gauge scrapes /metrics and returns the value of the sample named
// exactly (name and labels), failing when there is none.
func gauge(t *testing.T, base, name string) float64 {
	t.Helper()
	for line := range strings.Lines(metricsText(t, base)) {
		if rest, ok := strings.CutPrefix(line, name+" "); ok {
			v, err := strconv.ParseFloat(strings.TrimSpace(rest), 64)
			require.NoError(t, err, line)
			return v
		}
	}
	require.Failf(t, "no sample", "%s", name)
	return 0
}

// TestRequestBudget: a query over the request budget is a 400 of rule
// too-costly that names the estimate and the budget, on every engine (the
// project's object counts come from its database); under it, the same
// query answers.
func TestRequestBudget(t *testing.T) {
	p := demo(t)
	prefix := "is hidden or "
	src := prefix + `count of translations where (text contains "a") > 0`
	for _, eng := range engines(t) {
		t.Run(eng, func(t *testing.T) {
			hs := serve(t, eng, server.Config{MaxRequestCost: 1000}, p)
			status, body := get(t, hs, "/api/v2/projects/1/strings", url.Values{"croql": {src}})
			require.Equal(t, http.StatusBadRequest, status, "%v", body)
			fe := body["errors"].([]any)[0].(map[string]any)["error"].(map[string]any)
			assert.Equal(t, "croql", fe["key"])
			e := fe["errors"].([]any)[0].(map[string]any)
			assert.Equal(t, "too-costly", e["rule"])
			assert.Equal(t, "croqlInvalidLogic", e["code"])
			msg := e["message"].(string)
			assert.Contains(t, msg, "request budget of 1000")
			assert.Contains(t, msg, fmt.Sprintf("× %d strings", len(p.Strings)), "the estimate names the objects visited")
			span := e["span"].(map[string]any)
			assert.Equal(t, float64(len(prefix)), span["start"], "the span is the costly part")
			assert.Contains(t, e["hint"], "--max-request-cost")
			// A query over the budget per object gets the facade's
			// answer, which names that budget.
			deep := `text = "x"`
			for range 8 {
				deep = "count of translations where (" + deep + ") > 0"
			}
			status, body = get(t, hs, "/api/v2/projects/1/strings", url.Values{"croql": {deep}})
			require.Equal(t, http.StatusBadRequest, status)
			assert.Contains(t, fmt.Sprint(body), "steps per object, over the budget of 1M")
			// POST bodies are estimated as well.
			req, err := http.NewRequest(http.MethodPost, hs.URL+"/api/v2/projects/1/strings/query", strings.NewReader(`{"croql":`+strconv.Quote(src)+`}`))
			require.NoError(t, err)
			req.Header.Set("Authorization", "Bearer "+token)
			status, body = do(t, hs, req)
			require.Equal(t, http.StatusBadRequest, status, "%v", body)
			assert.Contains(t, fmt.Sprint(body), "request budget of 1000")
			// A cheap query is under it; the default budget takes the dear one.
			status, body = get(t, hs, "/api/v2/projects/1/strings", url.Values{"croql": {"is hidden"}})
			assert.Equal(t, http.StatusOK, status, "%v", body)
			hs = serve(t, eng, server.Config{}, p)
			status, body = get(t, hs, "/api/v2/projects/1/strings", url.Values{"croql": {src}})
			assert.Equal(t, http.StatusOK, status, "%v", body)
		})
	}
}

// TestLongTextContains: on a project holding a long string, a `contains`
// with a 60,000-character needle is refused as too costly before it runs
// (the project's text lengths count in the estimate), where a short
// needle is served.
func TestLongTextContains(t *testing.T) {
	p := gen.Default() // a fresh project: the test changes it
	p.Strings[0].Text = strings.Repeat("a", 4<<20)
	needle := strings.Repeat("a", 60000) + "b"
	for _, eng := range engines(t) {
		t.Run(eng, func(t *testing.T) {
			hs := serve(t, eng, server.Config{}, p)
			status, body := get(t, hs, "/api/v2/projects/1/strings", url.Values{"croql": {`text contains "` + needle + `"`}})
			require.Equal(t, http.StatusBadRequest, status)
			assert.Contains(t, fmt.Sprint(body), "too-costly")
			status, body = get(t, hs, "/api/v2/projects/1/strings", url.Values{"croql": {`text contains "aab"`}})
			assert.Equal(t, http.StatusOK, status, "%v", body)
		})
	}
}

// TestLaneLimits: a token over its limit in a lane is a 429, a full lane
// a 503, both with Retry-After; a cheap request of the same token still
// answers.
func TestLaneLimits(t *testing.T) {
	p := heavyProject(40, 400)
	toks := &server.Tokens{}
	require.NoError(t, toks.Add("h1"))
	require.NoError(t, toks.Add("h2"))
	require.NoError(t, toks.Add(token)) // metricsText's
	hs := serve(t, "sqlite", server.Config{Tokens: toks, Timeout: time.Minute, CheapCost: 1e6,
		ExpensiveLane: 1, LaneQueue: -1, MaxPerToken: 1}, p)
	heavy := hs.URL + "/api/v2/projects/1/strings?croql=" + url.QueryEscape(heavyQuery)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = getAs(ctx, heavy, "h1")
	}()
	t.Cleanup(func() { cancel(); <-done })
	require.Eventually(t, func() bool { return gauge(t, hs.URL, `croql_lane_running{lane="expensive"}`) == 1 },
		10*time.Second, 10*time.Millisecond)
	for _, c := range []struct {
		tok    string
		status int
		reason string
	}{{"h1", http.StatusTooManyRequests, "token"}, {"h2", http.StatusServiceUnavailable, "full"}} {
		req, err := http.NewRequest(http.MethodGet, heavy, nil)
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+c.tok)
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		assert.Equal(t, c.status, res.StatusCode, "%s", b)
		assert.NotEmpty(t, res.Header.Get("Retry-After"))
		assert.Equal(t, 1.0, gauge(t, hs.URL, `croql_lane_refused_total{lane="expensive",reason="`+c.reason+`"}`))
	}
	code, err := getAs(context.Background(), hs.URL+"/api/v2/projects/1/strings?limit=1", "h1")
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, code, "the cheap lane has room for the same token")
}
