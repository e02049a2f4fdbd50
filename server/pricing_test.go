package server_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	gen "github.com/croql/croql/demo"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/server"
)

// longTextProject is a generated project of 2,000 strings, one of 4 MB
// and another whose identifier has 2,000 characters: their averages stay
// small (the cost per object is within the budget), their longest values
// do not.
func longTextProject() *schema.Project {
	p := gen.Generate(gen.Options{Strings: 2000, Seed: 1})
	p.Strings[0].Text = strings.Repeat("a", 4<<20)
	p.Strings[1].Identifier = strings.Repeat("i", 2000)
	return p
}

// TestEveryTextOperatorPricedPerCall: on PostgreSQL and MariaDB, whose
// substring search is quadratic and cannot be interrupted inside a call,
// a search priced from the project's longest texts over the budget per
// call is a 400 that says why, before it runs: the strings list's
// filter parameter (before, compiled with an unlimited cost and never
// priced), and `text contains identifier` (before, priced from the two
// average lengths). On SQLite, whose contains is linear, both answer.
// A short search answers everywhere.
func TestEveryTextOperatorPricedPerCall(t *testing.T) {
	p := longTextProject()
	needle := strings.Repeat("a", 1000) + "b"
	for _, eng := range engines(t) {
		t.Run(eng, func(t *testing.T) {
			hs := serve(t, eng, server.Config{}, p)
			for _, q := range []url.Values{
				{"filter": {needle}},
				{"filter": {needle}, "scope": {"text"}},
				{"croql": {`text contains identifier`}},
			} {
				status, body := get(t, hs, "/api/v2/projects/1/strings", q)
				if eng == "sqlite" {
					assert.Equal(t, http.StatusOK, status, "%v: %.300v", q, body)
					continue
				}
				require.Equal(t, http.StatusBadRequest, status, "%v: %.300v", q, body)
				msg := fmt.Sprint(body)
				assert.Contains(t, msg, "cannot interrupt")
				assert.Contains(t, msg, "--max-call-cost")
				key := "croql"
				if q.Has("filter") {
					key = "filter"
				}
				assert.Contains(t, msg, "key:"+key)
			}
			status, body := get(t, hs, "/api/v2/projects/1/strings", url.Values{"filter": {"aab"}})
			assert.Equal(t, http.StatusOK, status, "%.300v", body)
			status, body = get(t, hs, "/api/v2/projects/1/strings", url.Values{"croql": {`text contains "aab"`}})
			assert.Equal(t, http.StatusOK, status, "%.300v", body)
		})
	}
}

// TestFilterParamInTheRequestBudget: the filter parameter's condition
// counts in the request's cost: a request budget the bare list passes
// refuses the list with a filter, under the parameter's key (before, the
// parameters were never priced).
func TestFilterParamInTheRequestBudget(t *testing.T) {
	p := gen.Default()
	hs := serve(t, "sqlite", server.Config{MaxRequestCost: float64(10 * len(p.Strings))}, p)
	status, body := get(t, hs, "/api/v2/projects/1/strings", nil)
	require.Equal(t, http.StatusOK, status, "%.300v", body)
	status, body = get(t, hs, "/api/v2/projects/1/strings", url.Values{"filter": {strings.Repeat("x", 200)}})
	require.Equal(t, http.StatusBadRequest, status, "%.300v", body)
	assert.Contains(t, fmt.Sprint(body), "key:filter")
	assert.Contains(t, fmt.Sprint(body), "request budget")
}
