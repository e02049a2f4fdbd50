package server_test

import (
	"net/http"
	"net/url"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/croql/croql/schema"
	"github.com/croql/croql/server"
)

// objectsOf are the objects of a list answer.
func objectsOf(t *testing.T, body map[string]any) []map[string]any {
	t.Helper()
	list, ok := body["data"].([]any)
	require.True(t, ok, "%v", body)
	out := make([]map[string]any, len(list))
	for i, x := range list {
		out[i] = x.(map[string]any)["data"].(map[string]any)
	}
	return out
}

// listOK GETs a list and returns its objects, asking for every one.
func listOK(t *testing.T, hs interface{ Close() }, get func(string, url.Values) (int, map[string]any), path string, q url.Values) []map[string]any {
	t.Helper()
	if q == nil {
		q = url.Values{}
	}
	q.Set("limit", "500")
	status, body := get(path, q)
	require.Equal(t, http.StatusOK, status, "%s %v: %v", path, q, body)
	return objectsOf(t, body)
}

// demoMarks are the demo's translations with their string, and its
// votes and approvals per translation.
type demoMarks struct {
	trs                map[int64]schema.Translation
	strOf              map[int64]int64
	votes, approvals   int
	up, down           map[int64]int
	approvalsOf        map[int64]int
	comments, issues   int
	unresolved         int
	commentsOfString1  int
	stringWithComments int64
}

func marksOf(p *schema.Project) demoMarks {
	m := demoMarks{trs: map[int64]schema.Translation{}, strOf: map[int64]int64{}, up: map[int64]int{}, down: map[int64]int{}, approvalsOf: map[int64]int{}}
	for _, s := range p.Strings {
		m.comments += len(s.Comments)
		if len(s.Comments) > 0 && m.stringWithComments == 0 {
			m.stringWithComments = s.ID
			m.commentsOfString1 = len(s.Comments)
		}
		for _, c := range s.Comments {
			if c.HasIssue {
				m.issues++
			}
			if c.HasUnresolvedIssue {
				m.unresolved++
			}
		}
		for _, tr := range s.Translations {
			if _, seen := m.trs[tr.ID]; seen {
				continue
			}
			m.trs[tr.ID] = tr
			m.strOf[tr.ID] = s.ID
			m.votes += len(tr.Votes)
			m.approvals += len(tr.Approvals)
			m.approvalsOf[tr.ID] = len(tr.Approvals)
			for _, v := range tr.Votes {
				if v.Mark == "up" {
					m.up[tr.ID]++
				} else {
					m.down[tr.ID]++
				}
			}
		}
	}
	return m
}

// TestReadEndpoints: the lists of the project's other data (string
// translations, approvals, votes, comments, members, directories,
// branches, glossary concepts) answer the data, with their parameters,
// paging and refusals, on every engine; a token limited to another
// project sees none of them.
func TestReadEndpoints(t *testing.T) {
	p := demo(t)
	m := marksOf(p)
	for _, eng := range engines(t) {
		t.Run(eng, func(t *testing.T) {
			toks := &server.Tokens{}
			require.NoError(t, toks.Add(token))
			require.NoError(t, toks.Add("other-project", 2))
			hs := serve(t, eng, server.Config{Tokens: toks}, p)
			g := func(path string, q url.Values) (int, map[string]any) { return get(t, hs, path, q) }
			list := func(path string, q url.Values) []map[string]any { return listOK(t, hs, g, path, q) }
			refused := func(path string, q url.Values, key string) {
				t.Helper()
				status, body := g(path, q)
				require.Equal(t, http.StatusBadRequest, status, "%s %v: %v", path, q, body)
				require.Contains(t, body["errors"].([]any)[0].(map[string]any)["error"].(map[string]any)["key"], key)
			}

			// String translations of one string in one language.
			var tr schema.Translation
			for _, x := range m.trs {
				if m.up[x.ID]+m.down[x.ID] > 0 && x.Language == "de" && (tr.ID == 0 || x.ID < tr.ID) {
					tr = x
				}
			}
			sid := m.strOf[tr.ID]
			got := list("/api/v2/projects/1/translations", url.Values{"stringId": {itoa(int(sid))}, "languageId": {"de"}})
			var want []int64
			for id, x := range m.trs {
				if m.strOf[id] == sid && x.Language == "de" {
					want = append(want, id)
				}
			}
			slices.Sort(want)
			require.Equal(t, want, idsOfObjects(got, "id"))
			o := got[slices.Index(idsOfObjects(got, "id"), tr.ID)]
			require.Equal(t, tr.Text, o["text"])
			require.EqualValues(t, m.up[tr.ID]-m.down[tr.ID], o["rating"])
			require.Equal(t, p.Users[slices.IndexFunc(p.Users, func(u schema.UserRef) bool { return u.ID == tr.User })].Login, o["user"].(map[string]any)["username"])
			status, one := g("/api/v2/projects/1/translations/"+itoa(int(tr.ID)), nil)
			require.Equal(t, http.StatusOK, status)
			require.Equal(t, tr.Text, one["data"].(map[string]any)["text"])
			status, _ = g("/api/v2/projects/1/translations/99999999", nil)
			require.Equal(t, http.StatusNotFound, status)
			refused("/api/v2/projects/1/translations", url.Values{"languageId": {"de"}}, "stringId")
			refused("/api/v2/projects/1/translations", url.Values{"stringId": {"1"}}, "languageId")
			refused("/api/v2/projects/1/translations", url.Values{"stringId": {"1"}, "languageId": {"de"}, "croql": {"is hidden"}}, "croql")

			// Approvals and votes.
			require.Len(t, list("/api/v2/projects/1/approvals", nil), m.approvals)
			require.Len(t, list("/api/v2/projects/1/votes", nil), m.votes)
			votes := list("/api/v2/projects/1/votes", url.Values{"translationId": {itoa(int(tr.ID))}})
			require.Len(t, votes, m.up[tr.ID]+m.down[tr.ID])
			for _, v := range votes {
				require.EqualValues(t, tr.ID, v["translationId"])
				require.Contains(t, []any{"up", "down"}, v["mark"])
			}
			byStr := list("/api/v2/projects/1/votes", url.Values{"stringId": {itoa(int(sid))}, "languageId": {"de"}})
			require.Len(t, byStr, sumOf(want, func(id int64) int { return m.up[id] + m.down[id] }))
			var approved int64
			for id, n := range m.approvalsOf {
				if n > 0 && (approved == 0 || id < approved) {
					approved = id
				}
			}
			apprs := list("/api/v2/projects/1/approvals", url.Values{"translationId": {itoa(int(approved))}})
			require.Len(t, apprs, m.approvalsOf[approved])
			require.EqualValues(t, m.strOf[approved], apprs[0]["stringId"])
			require.Equal(t, m.trs[approved].Language, apprs[0]["languageId"])
			de := list("/api/v2/projects/1/approvals", url.Values{"languageId": {"de"}})
			require.Len(t, de, sumOf(keysOf(m.trs), func(id int64) int {
				if m.trs[id].Language == "de" {
					return m.approvalsOf[id]
				}
				return 0
			}))
			page := list("/api/v2/projects/1/approvals", url.Values{"offset": {"3"}})
			require.Len(t, page, m.approvals-3)
			refused("/api/v2/projects/1/approvals", url.Values{"stringId": {"x"}}, "stringId")
			status, _ = g("/api/v2/projects/1/approvals", url.Values{"languageId": {"xx"}})
			require.Equal(t, http.StatusNotFound, status)

			// Comments.
			require.Len(t, list("/api/v2/projects/1/comments", nil), m.comments)
			require.Len(t, list("/api/v2/projects/1/comments", url.Values{"type": {"issue"}}), m.issues)
			require.Len(t, list("/api/v2/projects/1/comments", url.Values{"issueStatus": {"unresolved"}}), m.unresolved)
			cs := list("/api/v2/projects/1/comments", url.Values{"stringId": {itoa(int(m.stringWithComments))}})
			require.Len(t, cs, m.commentsOfString1)
			require.EqualValues(t, m.stringWithComments, cs[0]["string"].(map[string]any)["id"])
			refused("/api/v2/projects/1/comments", url.Values{"issueType": {"source_mistake"}}, "issueType")
			refused("/api/v2/projects/1/comments", url.Values{"type": {"note"}}, "type")

			// Members, directories, branches, concepts.
			require.Len(t, list("/api/v2/projects/1/members", nil), len(p.Users))
			ms := list("/api/v2/projects/1/members", url.Values{"search": {p.Users[0].Login}})
			require.Contains(t, idsOfObjects(ms, "id"), p.Users[0].ID)
			status, one = g("/api/v2/projects/1/members/"+itoa(int(p.Users[0].ID)), nil)
			require.Equal(t, http.StatusOK, status)
			require.Equal(t, p.Users[0].Login, one["data"].(map[string]any)["username"])
			refused("/api/v2/projects/1/members", url.Values{"role": {"manager"}}, "role")
			require.Empty(t, list("/api/v2/projects/1/directories", nil))
			status, _ = g("/api/v2/projects/1/directories/1", nil)
			require.Equal(t, http.StatusNotFound, status)
			bs := list("/api/v2/projects/1/branches", nil)
			require.Len(t, bs, len(p.Branches))
			require.Len(t, list("/api/v2/projects/1/branches", url.Values{"name": {p.Branches[0].Name}}), 1)
			status, one = g("/api/v2/projects/1/branches/"+itoa(int(p.Branches[0].ID)), nil)
			require.Equal(t, http.StatusOK, status)
			require.Equal(t, p.Branches[0].Name, one["data"].(map[string]any)["name"])
			cps := list("/api/v2/glossaries/1/concepts", url.Values{"orderBy": {"subject desc"}})
			require.Len(t, cps, len(p.GlossaryConcepts))
			require.True(t, slices.IsSortedFunc(cps, func(a, b map[string]any) int {
				return -compareStrings(a["subject"].(string), b["subject"].(string))
			}))
			c0 := p.GlossaryConcepts[0]
			status, one = g("/api/v2/glossaries/1/concepts/"+itoa(int(c0.ID)), nil)
			require.Equal(t, http.StatusOK, status)
			require.Equal(t, c0.Subject, one["data"].(map[string]any)["subject"])
			require.Equal(t, c0.Definition, one["data"].(map[string]any)["definition"])

			// A token for another project sees none of them.
			for _, path := range []string{"/api/v2/projects/1/approvals", "/api/v2/projects/1/votes", "/api/v2/projects/1/comments",
				"/api/v2/projects/1/members", "/api/v2/projects/1/branches", "/api/v2/glossaries/1/concepts",
				"/api/v2/projects/1/translations/" + itoa(int(tr.ID))} {
				req, err := http.NewRequest(http.MethodGet, hs.URL+path, nil)
				require.NoError(t, err)
				req.Header.Set("Authorization", "Bearer other-project")
				status, _ := do(t, hs, req)
				require.Equal(t, http.StatusNotFound, status, path)
			}
		})
	}
}

func idsOfObjects(objs []map[string]any, key string) []int64 {
	out := make([]int64, len(objs))
	for i, o := range objs {
		out[i] = int64(o[key].(float64))
	}
	return out
}

func sumOf(ids []int64, f func(int64) int) int {
	n := 0
	for _, id := range ids {
		n += f(id)
	}
	return n
}

func keysOf(m map[int64]schema.Translation) []int64 {
	out := make([]int64, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
