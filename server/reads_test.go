package server_test

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/croql/croql"
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
	// firstComments are the comments of stringWithComments.
	firstComments []schema.Comment
}

func marksOf(p *schema.Project) demoMarks {
	m := demoMarks{trs: map[int64]schema.Translation{}, strOf: map[int64]int64{}, up: map[int64]int{}, down: map[int64]int{}, approvalsOf: map[int64]int{}}
	for _, s := range p.Strings {
		m.comments += len(s.Comments)
		if len(s.Comments) > 0 && m.stringWithComments == 0 {
			m.stringWithComments = s.ID
			m.commentsOfString1 = len(s.Comments)
			m.firstComments = s.Comments
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
			tr := votedTranslation(m)
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
			all := list("/api/v2/projects/1/approvals", nil)
			status, body := g("/api/v2/projects/1/approvals", url.Values{"offset": {"3"}, "limit": {"5"}, "withTotal": {"true"}})
			require.Equal(t, http.StatusOK, status)
			require.EqualValues(t, m.approvals, body["pagination"].(map[string]any)["total"])
			require.Equal(t, idsOfObjects(all[3:8], "translationId"), idsOfObjects(objectsOf(t, body), "translationId"))
			byUser := list("/api/v2/projects/1/approvals", url.Values{"orderBy": {"translationId desc"}})
			require.True(t, slices.IsSortedFunc(idsOfObjects(byUser, "translationId"), func(a, b int64) int { return int(b - a) }))
			refused("/api/v2/projects/1/approvals", url.Values{"afterId": {"0"}}, "afterId")
			refused("/api/v2/projects/1/approvals", url.Values{"stringId": {"x"}}, "stringId")
			refused("/api/v2/projects/1/votes", url.Values{"labelIds": {strings.Repeat("1,", 500) + "1"}}, "labelIds")
			status, _ = g("/api/v2/projects/1/approvals", url.Values{"languageId": {"xx"}})
			require.Equal(t, http.StatusNotFound, status)

			// Comments.
			require.Len(t, list("/api/v2/projects/1/comments", nil), m.comments)
			require.Len(t, list("/api/v2/projects/1/comments", url.Values{"type": {"issue"}}), m.issues)
			require.Len(t, list("/api/v2/projects/1/comments", url.Values{"issueStatus": {"unresolved"}}), m.unresolved)
			cs := list("/api/v2/projects/1/comments", url.Values{"stringId": {itoa(int(m.stringWithComments))}})
			require.Len(t, cs, m.commentsOfString1)
			require.EqualValues(t, m.stringWithComments, cs[0]["string"].(map[string]any)["id"])
			for i, c := range m.firstComments { // the store keeps each comment's id, text and date
				require.EqualValues(t, c.ID, cs[i]["id"])
				require.Equal(t, c.Text, cs[i]["text"])
				require.Equal(t, c.Added.Std().Format(server.TimeLayout), cs[i]["createdAt"])
			}
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

// votedTranslation is the demo's lowest translation into de with votes.
func votedTranslation(m demoMarks) schema.Translation {
	var tr schema.Translation
	for _, x := range m.trs {
		if m.up[x.ID]+m.down[x.ID] > 0 && x.Language == "de" && (tr.ID == 0 || x.ID < tr.ID) {
			tr = x
		}
	}
	return tr
}

// approvedTranslation is the demo's lowest translation into de with
// approvals.
func approvedTranslation(m demoMarks) schema.Translation {
	var tr schema.Translation
	for _, x := range m.trs {
		if m.approvalsOf[x.ID] > 0 && x.Language == "de" && (tr.ID == 0 || x.ID < tr.ID) {
			tr = x
		}
	}
	return tr
}

// translationsWhere are the demo's translations into lang of the strings
// keep keeps, once each.
func translationsWhere(p *schema.Project, lang string, keep func(*schema.SourceString) bool) []int64 {
	seen := map[int64]bool{}
	var out []int64
	for i := range p.Strings {
		s := &p.Strings[i]
		if !keep(s) {
			continue
		}
		for _, tr := range s.Translations {
			if tr.Language == lang && !seen[tr.ID] {
				seen[tr.ID] = true
				out = append(out, tr.ID)
			}
		}
	}
	slices.Sort(out)
	return out
}

// checkJSReads checks the JS client's calls of the project's other data
// (suite.js) against the demo.
func checkJSReads(t *testing.T, p *schema.Project, res map[string]jsResult, works func(string, []int64), refused func(string, string)) {
	t.Helper()
	m := marksOf(p)
	tr := votedTranslation(m)
	sid := m.strOf[tr.ID]
	trs := translationsWhere(p, "de", func(s *schema.SourceString) bool { return s.ID == sid })
	works("stringTranslations.list", nil)
	require.Equal(t, trs, res["stringTranslations.list"].IDs)
	i := slices.Index(trs, tr.ID)
	require.EqualValues(t, m.up[tr.ID]-m.down[tr.ID], *res["stringTranslations.list"].Ratings[i])
	rev := slices.Clone(trs)
	slices.Reverse(rev)
	require.Equal(t, rev, res["stringTranslations.orderBy"].IDs)
	works("stringTranslations.get", []int64{tr.ID})
	refused("stringTranslations.noStringId", "stringId")
	approvals := func(ids []int64) int { return sumOf(ids, func(id int64) int { return m.approvalsOf[id] }) }
	votes := func(ids []int64) int { return sumOf(ids, func(id int64) int { return m.up[id] + m.down[id] }) }
	count := func(name string, n int) {
		t.Helper()
		works(name, nil)
		require.Len(t, res[name].IDs, n, name)
	}
	count("approvals.all", m.approvals)
	ap := approvedTranslation(m)
	count("approvals.translationId", m.approvalsOf[ap.ID])
	require.Positive(t, m.approvalsOf[ap.ID])
	apStr := m.strOf[ap.ID]
	count("approvals.stringId", approvals(translationsWhere(p, "de", func(s *schema.SourceString) bool { return s.ID == apStr })))
	for _, sid := range res["approvals.stringId"].StringIDs {
		require.Equal(t, apStr, *sid)
	}
	count("approvals.fileId", approvals(translationsWhere(p, "de", func(s *schema.SourceString) bool { return s.File != nil && s.File.ID == 1 })))
	var labelled []int64
	for _, lang := range p.TargetLanguages {
		labelled = append(labelled, translationsWhere(p, lang, func(s *schema.SourceString) bool {
			return slices.ContainsFunc(s.Labels, func(l schema.Label) bool { return l.ID == 3 })
		})...)
	}
	count("approvals.labelIds", approvals(labelled))
	refused("approvals.get", "approvalId")
	count("votes.all", m.votes)
	count("votes.translationId", votes([]int64{tr.ID}))
	count("votes.stringId", votes(trs))
	refused("votes.get", "voteId")
	count("comments.all", m.comments)
	count("comments.stringId", m.commentsOfString1)
	count("comments.issues", m.unresolved)
	count("comments.type", m.issues)
	refused("comments.issueType", "issueType")
	refused("comments.get", "stringCommentId")
	count("members.list", len(p.Users))
	works("members.search", []int64{11})
	refused("members.role", "role")
	works("members.get", []int64{p.Users[0].ID})
	count("directories.list", 0)
	require.Equal(t, http.StatusNotFound, res["directories.get"].Status)
	var branches, concepts []int64
	for _, b := range p.Branches {
		branches = append(branches, b.ID)
	}
	for _, c := range p.GlossaryConcepts {
		concepts = append(concepts, c.ID)
	}
	works("branches.list", branches)
	works("branches.name", []int64{1})
	works("branches.get", []int64{2})
	works("concepts.list", concepts)
	require.True(t, slices.IsSortedFunc(res["concepts.orderBy"].Names, func(a, b any) int { return -compareStrings(a.(string), b.(string)) }))
	require.Equal(t, concepts[2:5], res["concepts.paging"].IDs)
	works("concepts.get", []int64{800})
	works("files.editFile", []int64{1})
	require.Equal(t, []any{"Edited"}, res["files.edited.get"].Titles)
	refused("files.editFile.priority", "priority")
	refused("files.revisions", "fileId")

	refused("translations.croql+fileId", "fileId")
	works("strings.fileId.plural", evalIDs(t, p, croql.Strings, "", "id of file = 4"))
	works("storages.add", nil)
	works("storages.list", nil)
	require.Contains(t, res["storages.list"].IDs, res["storages.add"].IDs[0])
	works("storages.get", res["storages.add"].IDs)
	works("storages.delete", nil)
	require.Equal(t, http.StatusNotFound, res["storages.deleted.get"].Status)
}
