package server_test

import (
	"cmp"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	gen "github.com/croql/croql/demo"
	"github.com/croql/croql/server"
)

// TestReadListsDeepPages: a page of the comments, approvals, votes and
// string translations lists ordered by integer fields, and of the
// translations list with stringIds, deep in a larger project, is the
// page of the whole list ordered as the platform's orderBy orders it
// (stable: the list's own order breaks ties after the id), with the same
// total, on every engine.
func TestReadListsDeepPages(t *testing.T) {
	p := gen.Generate(gen.Options{Strings: 700, Seed: 5})
	for _, eng := range engines(t) {
		t.Run(eng, func(t *testing.T) {
			// hs pages as the database does; seeking through seek indexes
			// from offset 1.
			// from offset 1 (tight: with a budget its indexes do not fit).
			hs := serve(t, eng, server.Config{}, p)
			seekServer := func(budget int64) (*server.Server, *httptest.Server) {
				st, err := server.LoadSQLite(t.Context(), t.TempDir(), p)
				if eng != "sqlite" {
					st, err = server.LoadServer(t.Context(), eng, dsnOf(eng), p)
				}
				require.NoError(t, err)
				t.Cleanup(func() { require.NoError(t, st.Close()) })
				tokens := &server.Tokens{}
				require.NoError(t, tokens.Add(token))
				srv, err := server.New(server.Config{Storage: st, Tokens: tokens, Now: clock, ResidentMaxBytes: budget})
				require.NoError(t, err)
				server.SetSeekMinOffset(srv, 1)
				h := httptest.NewServer(srv)
				t.Cleanup(h.Close)
				return srv, h
			}
			srv, seeking := seekServer(64 << 20)
			tightSrv, tight := seekServer(64)

			// Requests that arrive together while the index is built get
			// the same page.
			_, together := seekServer(64 << 20)
			q := url.Values{"languageId": {"de"}, "offset": {"20"}, "limit": {"50"}}
			_, alone := get(t, hs, "/api/v2/projects/1/votes", q)
			var wg sync.WaitGroup
			bodies := make([]map[string]any, 8)
			for i := range bodies {
				wg.Go(func() { _, bodies[i] = get(t, together, "/api/v2/projects/1/votes", q) })
			}
			wg.Wait()
			for _, b := range bodies {
				require.Equal(t, alone, b)
			}
			g := func(path string, q url.Values) (int, map[string]any) { return get(t, hs, path, q) }
			// every reads a whole list in its own order, page by page.
			every := func(path string, q url.Values) []map[string]any {
				t.Helper()
				var out []map[string]any
				for off := 0; ; off += 500 {
					qq := url.Values{"limit": {"500"}, "offset": {itoa(off)}}
					for k, v := range q {
						qq[k] = v
					}
					status, body := g(path, qq)
					require.Equal(t, http.StatusOK, status, "%s %v: %v", path, qq, body)
					page := objectsOf(t, body)
					out = append(out, page...)
					if len(page) < 500 {
						return out
					}
				}
			}
			// pages checks path with q's pages against want.
			pages := func(path string, q url.Values, want []map[string]any) {
				t.Helper()
				for _, lo := range [][2]int{{0, 500}, {3, 7}, {len(want) / 2, 25}, {max(len(want)-4, 0), 10}, {len(want) + 5, 5}} {
					qq := url.Values{"offset": {itoa(lo[0])}, "limit": {itoa(lo[1])}, "withTotal": {"true"}}
					for k, v := range q {
						qq[k] = v
					}
					end := min(lo[0]+lo[1], len(want))
					exp := []map[string]any{}
					if lo[0] < len(want) {
						exp = want[lo[0]:end]
					}
					for _, h := range []*httptest.Server{hs, seeking, tight} {
						status, body := get(t, h, path, qq)
						require.Equal(t, http.StatusOK, status, "%s %v: %v", path, qq, body)
						require.Equal(t, exp, objectsOf(t, body), "%s %v", path, qq)
						require.EqualValues(t, len(want), body["pagination"].(map[string]any)["total"], "%s %v", path, qq)
					}
				}
			}
			type term struct {
				key  string
				desc bool
			}
			// sorted is objs stably sorted by terms, then by id.
			sorted := func(objs []map[string]any, terms ...term) []map[string]any {
				out := slices.Clone(objs)
				num := func(o map[string]any, k string) (float64, bool) { v, ok := o[k].(float64); return v, ok }
				slices.SortStableFunc(out, func(a, b map[string]any) int {
					for _, tm := range append(terms, term{key: "id"}) {
						x, okx := num(a, tm.key)
						y, oky := num(b, tm.key)
						c := cmp.Or(cmpBools(okx, oky), cmp.Compare(x, y))
						if tm.desc {
							c = -c
						}
						if c != 0 {
							return c
						}
					}
					return 0
				})
				return out
			}

			comments := every("/api/v2/projects/1/comments", nil)
			require.Greater(t, len(comments), 100)
			pages("/api/v2/projects/1/comments", url.Values{"orderBy": {"stringId"}}, sorted(comments, term{key: "stringId"}))
			pages("/api/v2/projects/1/comments", url.Values{"orderBy": {"stringId desc,id"}}, sorted(comments, term{"stringId", true}, term{key: "id"}))
			pages("/api/v2/projects/1/comments", url.Values{"orderBy": {"id desc"}}, sorted(comments, term{"id", true}))
			issues := every("/api/v2/projects/1/comments", url.Values{"type": {"issue"}})
			pages("/api/v2/projects/1/comments", url.Values{"type": {"issue"}, "orderBy": {"stringId desc"}}, sorted(issues, term{"stringId", true}))
			pages("/api/v2/projects/1/comments", url.Values{"type": {"issue"}, "orderBy": {"stringId"}}, sorted(issues, term{key: "stringId"}))
			pages("/api/v2/projects/1/comments", nil, comments)

			for _, list := range []string{"approvals", "votes"} {
				path := "/api/v2/projects/1/" + list
				de := every(path, url.Values{"languageId": {"de"}})
				require.Greater(t, len(de), 100, list)
				pages(path, url.Values{"languageId": {"de"}}, de)
				pages(path, url.Values{"languageId": {"de"}, "orderBy": {"translationId desc"}}, sorted(de, term{"translationId", true}))
				pages(path, url.Values{"languageId": {"de"}, "orderBy": {"translationId"}}, sorted(de, term{key: "translationId"}))
			}

			// The translations list with stringIds is the whole list's
			// objects of those strings, in the same order.
			all := every("/api/v2/projects/1/languages/de/translations", nil)
			require.Greater(t, len(all), 300)
			var ids []string
			var want []map[string]any
			for i := 1; i <= len(p.Strings); i += 3 {
				id := p.Strings[i-1].ID
				ids = append(ids, itoa(int(id)))
				if k := slices.IndexFunc(all, func(o map[string]any) bool { return o["stringId"] == float64(id) }); k >= 0 {
					want = append(want, all[k])
				}
			}
			require.Greater(t, len(want), 50)
			pages("/api/v2/projects/1/languages/de/translations", url.Values{"stringIds": {strings.Join(ids, ",")}}, want)
			pages("/api/v2/projects/1/languages/de/translations", url.Values{"stringIds": {strings.Join(ids, ",")}, "orderBy": {"stringId"}}, want)

			// Every deep page (offset 0 is not) of the lists above ordered
			// by their leading key ascending was read through an index: 4
			// per pages call, 3 calls of the comments, 2 of the approvals
			// and of the votes.
			require.EqualValues(t, 4*(3+2*2), server.SeekServed(srv))
			require.Zero(t, server.SeekServed(tightSrv))

			// One string's translations ordered by id, descending.
			for _, s := range p.Strings {
				q := url.Values{"stringId": {itoa(int(s.ID))}, "languageId": {"de"}}
				trs := every("/api/v2/projects/1/translations", q)
				if len(trs) < 3 {
					continue
				}
				q.Set("orderBy", "id desc")
				pages("/api/v2/projects/1/translations", q, sorted(trs, term{"id", true}))
				break
			}
		})
	}
}

// cmpBools orders false before true (a missing or null field first).
func cmpBools(x, y bool) int {
	switch {
	case x == y:
		return 0
	case !x:
		return -1
	}
	return 1
}
