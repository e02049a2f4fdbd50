package server

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"
)

// The strategies a sharded engine takes (the coordinator's keys in place
// of the query's condition; the translations read whole and filed under
// their strings in Go) run on any engine: on SQLite they answer every
// list as the SQL strategy does, byte for byte.
func TestShardedStrategiesAnswerAsSQL(t *testing.T) {
	s, _, _ := scaledStats(t, 1) // the demo project on SQLite
	eps := map[string]*endpoint{}
	for _, ep := range endpoints() {
		eps[ep.context] = ep
	}
	const strs, trs = "/api/v2/projects/1/strings", "/api/v2/projects/1/languages/de/translations"
	for _, c := range []struct {
		context, path string
		q             url.Values
	}{
		{"strings", strs, url.Values{"croql": {`count of translations > 0`}, "withTotal": {"true"}}},
		{"strings", strs, url.Values{"croql": {`identifier contains "a"`}, "orderBy": {"text desc"}, "limit": {"7"}, "offset": {"3"}}},
		{"strings", strs, url.Values{"croql": {`text contains "e"`}, "afterId": {"20"}, "limit": {"3"}}},
		{"translations", trs, url.Values{"croql": {`count of approvals > 0 or text contains "a"`}, "withTotal": {"true"}}},
		{"translations", trs, url.Values{"croql": {`text contains "e"`}, "orderBy": {"text"}, "branchId": {"1"}}},
		{"translations", trs, url.Values{"croql": {`text contains "e"`}, "orderBy": {"stringId desc"}, "limit": {"4"}, "offset": {"2"}}},
		{"translations", trs, url.Values{"afterId": {"30"}, "limit": {"5"}, "withTotal": {"true"}}},
		{"tm", "/api/v2/tms/1/segments", url.Values{"croql": {`count of records where (text contains "a") > 0`}, "withTotal": {"true"}}},
		{"glossary", "/api/v2/glossaries/1/terms", url.Values{"croql": {`text contains "a"`}, "withTotal": {"true"}}},
	} {
		ep := eps[c.context]
		answer := func(sharded bool) string {
			var out string
			mux := http.NewServeMux()
			mux.HandleFunc("GET "+ep.path, func(_ http.ResponseWriter, r *http.Request) {
				req, e := s.readList(r, ep, false)
				require.Nil(t, e)
				if sharded && c.q.Get("croql") != "" {
					require.Nil(t, s.coordinate(req))
				}
				pl, e := ep.plan(s, req)
				if sharded && c.context == "translations" {
					pl, e = s.planTranslations(req, true)
				}
				require.Nil(t, e)
				o, e := pl.run(s, req)
				require.Nil(t, e)
				b, err := json.Marshal(o)
				require.NoError(t, err)
				out = string(b)
			})
			r := httptest.NewRequest(http.MethodGet, c.path+"?"+c.q.Encode(), nil)
			mux.ServeHTTP(httptest.NewRecorder(), r.WithContext(context.WithValue(r.Context(), grantKey{}, Grant{all: true})))
			return out
		}
		want := answer(false)
		require.Greater(t, len(want), len(`{"data":[],"pagination":{}}`), "%s %v", c.path, c.q)
		require.Equal(t, want, answer(true), "%s %v", c.path, c.q)
	}
}
