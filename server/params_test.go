package server_test

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/croql/croql"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/server"
)

// idsWith pages through a list with the query parameters q (500 a page)
// and returns the ids served, sorted (translations: every translation
// sent, the plural forms' included).
func idsWith(t *testing.T, get func(string, url.Values) (int, map[string]any), path, ctx string, q url.Values) []int64 {
	t.Helper()
	ids := []int64{}
	for off := 0; ; off += 500 {
		qq := url.Values{}
		for k, v := range q {
			qq[k] = v
		}
		qq.Set("limit", "500")
		qq.Set("offset", strconv.Itoa(off))
		status, body := get(path, qq)
		require.Equal(t, http.StatusOK, status, "%s %v: %v", path, q, body)
		data := body["data"].([]any)
		for _, d := range data {
			o := d.(map[string]any)["data"].(map[string]any)
			if pl, ok := o["plurals"].([]any); ok {
				for _, x := range pl {
					ids = append(ids, int64(x.(map[string]any)["translationId"].(float64)))
				}
				continue
			}
			ids = append(ids, int64(o[idKey(ctx)].(float64)))
		}
		if len(data) < 500 {
			slices.Sort(ids)
			return ids
		}
	}
}

// refusedWith asserts a 400 whose validation error is under key.
func refusedWith(t *testing.T, get func(string, url.Values) (int, map[string]any), path string, q url.Values, key string) {
	t.Helper()
	status, body := get(path, q)
	require.Equal(t, http.StatusBadRequest, status, "%s %v: %v", path, q, body)
	errs := body["errors"].([]any)
	require.NotEmpty(t, errs)
	e := errs[0].(map[string]any)["error"].(map[string]any)
	require.Equal(t, key, e["key"], "%v", body)
}

// translationsOfStrings is, for the strings src matches (the evaluator),
// the ids of their translations in lang.
func translationsOfStrings(t *testing.T, p *schema.Project, lang string, keep func(*schema.SourceString) bool) []int64 {
	t.Helper()
	ids := []int64{}
	strs := map[int64]bool{}
	for i := range p.Strings {
		strs[p.Strings[i].ID] = keep(&p.Strings[i])
	}
	for _, tr := range p.Translations() {
		if tr.Language == lang && strs[tr.StringID] {
			ids = append(ids, tr.ID)
		}
	}
	slices.Sort(ids)
	return ids
}

// TestListParameters: every documented list parameter changes the answer
// as the platform documents it (compared with the evaluator on the
// equivalent croql), or is a 400 that names it; croql beside a parameter
// the platform does not combine it with is a 400 naming the parameter.
func TestListParameters(t *testing.T) {
	p := demo(t)
	all := func(ctx string) []int64 { return evalIDs(t, p, ctx, "", "") }
	for _, eng := range engines(t) {
		t.Run(eng, func(t *testing.T) {
			hs := serve(t, eng, server.Config{}, p)
			g := func(path string, q url.Values) (int, map[string]any) { return get(t, hs, path, q) }
			strs := "/api/v2/projects/1/strings"

			// Strings: each parameter equals its croql, and narrows the list.
			check := func(q url.Values, src string) {
				t.Helper()
				want := evalIDs(t, p, croql.Strings, "", src)
				require.NotEmpty(t, want, src)
				require.NotEqual(t, all(croql.Strings), want, src)
				require.Equal(t, want, idsWith(t, g, strs, croql.Strings, q), "%v ≡ %s", q, src)
			}
			for _, f := range p.Files {
				check(url.Values{"fileId": {strconv.FormatInt(f.ID, 10)}}, fmt.Sprintf("id of file = %d", f.ID))
			}
			for _, b := range p.Branches {
				check(url.Values{"branchId": {strconv.FormatInt(b.ID, 10)}}, fmt.Sprintf("id of branch = %d", b.ID))
			}
			check(url.Values{"labelIds": {"3,1"}}, "count of labels where (id = 3 or id = 1) > 0")
			check(url.Values{"filter": {"checkout"}}, `identifier contains "checkout" or text contains "checkout" or context contains "checkout"`)
			check(url.Values{"filter": {"button"}, "scope": {"identifier"}}, `identifier contains "button"`)
			check(url.Values{"filter": {"Pay"}, "scope": {"text,context"}}, `text contains "Pay" or context contains "Pay"`)
			// The stored texts have no normalized placeholders: 0 and 1
			// answer the same, every string.
			require.Equal(t, all(croql.Strings), idsWith(t, g, strs, croql.Strings, url.Values{"denormalizePlaceholders": {"1"}}))
			require.Equal(t, evalIDs(t, p, croql.Strings, "", "is hidden"),
				idsWith(t, g, strs, croql.Strings, url.Values{"denormalizePlaceholders": {"0"}, "croql": {"is hidden"}}))
			refusedWith(t, g, strs, url.Values{"denormalizePlaceholders": {"2"}}, "denormalizePlaceholders")
			refusedWith(t, g, strs, url.Values{"directoryId": {"1"}}, "directoryId")
			refusedWith(t, g, strs, url.Values{"taskId": {"1"}}, "taskId")
			refusedWith(t, g, strs, url.Values{"fileId": {"x"}}, "fileId")
			refusedWith(t, g, strs, url.Values{"fileId": {"1"}, "branchId": {"1"}}, "branchId")
			refusedWith(t, g, strs, url.Values{"labelIds": {"1,a"}}, "labelIds")
			refusedWith(t, g, strs, url.Values{"scope": {"text"}}, "scope")
			refusedWith(t, g, strs, url.Values{"filter": {"a"}, "scope": {"title"}}, "scope")
			for _, k := range []string{"fileId", "branchId", "labelIds", "filter"} {
				refusedWith(t, g, strs, url.Values{k: {"1"}, "croql": {"is hidden"}}, k)
			}

			// Translations: the string filters select the translations of
			// the strings they match; approvedOnly and minApprovalCount
			// are counts of approvals; the answer is each string's top one.
			for _, lang := range []string{"de", "fr"} {
				path := "/api/v2/projects/1/languages/" + lang + "/translations"
				allTr := translationsOfStrings(t, p, lang, func(*schema.SourceString) bool { return true })
				trCheck := func(q url.Values, want []int64) {
					t.Helper()
					want = topTranslations(p, lang, want)
					require.NotEmpty(t, want, "%v", q)
					require.NotEqual(t, topTranslations(p, lang, allTr), want, "%v", q)
					require.Equal(t, want, idsWith(t, g, path, croql.Translations, q), "%s %v", lang, q)
				}
				trCheck(url.Values{"stringIds": {"1,2,8"}}, translationsOfStrings(t, p, lang, func(s *schema.SourceString) bool {
					return s.ID == 1 || s.ID == 2 || s.ID == 8
				}))
				trCheck(url.Values{"fileId": {"1"}}, translationsOfStrings(t, p, lang, func(s *schema.SourceString) bool {
					return s.File != nil && s.File.ID == 1
				}))
				trCheck(url.Values{"branchId": {"2"}}, translationsOfStrings(t, p, lang, func(s *schema.SourceString) bool {
					return s.Branch != nil && s.Branch.ID == 2
				}))
				trCheck(url.Values{"labelIds": {"3"}}, translationsOfStrings(t, p, lang, func(s *schema.SourceString) bool {
					return slices.ContainsFunc(s.Labels, func(l schema.Label) bool { return l.ID == 3 })
				}))
				require.Equal(t, topTranslations(p, lang, evalIDs(t, p, croql.Translations, lang, "count of approvals > 0")),
					idsWith(t, g, path, croql.Translations, url.Values{"approvedOnly": {"1"}}))
				for _, n := range []string{"1", "2"} {
					require.Equal(t, topTranslations(p, lang, evalIDs(t, p, croql.Translations, lang, "count of approvals >= "+n)),
						idsWith(t, g, path, croql.Translations, url.Values{"minApprovalCount": {n}}))
				}
				require.NotEmpty(t, idsWith(t, g, path, croql.Translations, url.Values{"minApprovalCount": {"1"}}))
				require.Equal(t, topTranslations(p, lang, allTr), idsWith(t, g, path, croql.Translations, url.Values{"approvedOnly": {"0"}}))
				passed := translationsOfStrings(t, p, lang, func(s *schema.SourceString) bool { return s.IsPassedWorkflow })
				require.Equal(t, topTranslations(p, lang, passed), idsWith(t, g, path, croql.Translations, url.Values{"passedWorkflow": {"1"}}))
				// branchId combines with croql.
				both := evalIDs(t, p, croql.Translations, lang, "count of votes > 0")
				inBranch := map[int64]bool{}
				for _, id := range translationsOfStrings(t, p, lang, func(s *schema.SourceString) bool { return s.Branch != nil && s.Branch.ID == 1 }) {
					inBranch[id] = true
				}
				both = slices.DeleteFunc(both, func(id int64) bool { return !inBranch[id] })
				require.Equal(t, topTranslations(p, lang, both),
					idsWith(t, g, path, croql.Translations, url.Values{"branchId": {"1"}, "croql": {"count of votes > 0"}}))
				for _, k := range []string{"stringIds", "labelIds", "fileId", "approvedOnly"} {
					refusedWith(t, g, path, url.Values{k: {"1"}, "croql": {"count of votes > 0"}}, k)
				}
				refusedWith(t, g, path, url.Values{"directoryId": {"1"}}, "directoryId")
				refusedWith(t, g, path, url.Values{"approvedOnly": {"yes"}}, "approvedOnly")
				refusedWith(t, g, path, url.Values{"orderBy": {"pluralCategoryName"}}, "orderBy")
				// orderBy stringId desc reverses the strings' order.
				status, body := get(t, hs, path, url.Values{"orderBy": {"stringId desc"}, "limit": {"500"}})
				require.Equal(t, http.StatusOK, status)
				var sids []int64
				for _, d := range body["data"].([]any) {
					sids = append(sids, int64(d.(map[string]any)["data"].(map[string]any)["stringId"].(float64)))
				}
				require.True(t, slices.IsSortedFunc(sids, func(a, b int64) int { return int(b - a) }), "%v", sids)
				require.Greater(t, len(sids), 1)
				// Another order reads every string's choice first: the same
				// translations, paged; withTotal counts the strings.
				require.Equal(t, topTranslations(p, lang, allTr), idsWith(t, g, path, croql.Translations, url.Values{"orderBy": {"text desc"}}))
				for _, ob := range []string{"", "createdAt"} {
					status, body = get(t, hs, path, url.Values{"withTotal": {"true"}, "limit": {"3"}, "orderBy": {ob}})
					require.Equal(t, http.StatusOK, status)
					require.Len(t, body["data"], 3)
					require.Equal(t, float64(len(sids)), body["pagination"].(map[string]any)["total"], "orderBy %q", ob)
				}
			}

			// Terms.
			terms := "/api/v2/glossaries/1/terms"
			termCheck := func(q url.Values, src string) {
				t.Helper()
				want := evalIDs(t, p, croql.Glossary, "", src)
				require.NotEmpty(t, want, src)
				require.NotEqual(t, all(croql.Glossary), want, src)
				require.Equal(t, want, idsWith(t, g, terms, croql.Glossary, q), "%v ≡ %s", q, src)
			}
			termCheck(url.Values{"languageId": {"de"}}, `language = @language:"de"`)
			termCheck(url.Values{"userId": {strconv.FormatInt(p.GlossaryTerms[0].User, 10)}}, fmt.Sprintf("user = %d", p.GlossaryTerms[0].User))
			termCheck(url.Values{"conceptId": {strconv.FormatInt(p.GlossaryTerms[0].ConceptID, 10)}}, fmt.Sprintf("concept = %d", p.GlossaryTerms[0].ConceptID))
			refusedWith(t, g, terms, url.Values{"translationOfTermId": {"1"}}, "translationOfTermId")
			refusedWith(t, g, terms, url.Values{"languageId": {"xx"}}, "languageId")
			for _, k := range []string{"languageId", "userId", "conceptId"} {
				v := "1"
				if k == "languageId" {
					v = "de"
				}
				refusedWith(t, g, terms, url.Values{k: {v}, "croql": {`text contains "a"`}}, k)
			}

			// Projects.
			status, body := get(t, hs, "/api/v2/projects", url.Values{"type": {"1"}})
			require.Equal(t, http.StatusOK, status)
			require.Empty(t, body["data"])
			status, body = get(t, hs, "/api/v2/projects", url.Values{"type": {"0"}, "groupId": {"0"}})
			require.Equal(t, http.StatusOK, status)
			require.Len(t, body["data"], 1)
			status, body = get(t, hs, "/api/v2/projects", url.Values{"groupId": {"7"}})
			require.Equal(t, http.StatusOK, status)
			require.Empty(t, body["data"])
			status, body = get(t, hs, "/api/v2/projects", url.Values{"userId": {strconv.FormatInt(p.Users[0].ID, 10)}})
			require.Equal(t, http.StatusOK, status)
			require.Len(t, body["data"], 1)
			status, body = get(t, hs, "/api/v2/projects", url.Values{"userId": {"999999"}})
			require.Equal(t, http.StatusOK, status)
			require.Empty(t, body["data"])
			refusedWith(t, g, "/api/v2/projects", url.Values{"hasManagerAccess": {"1"}}, "hasManagerAccess")

			// TMs and glossaries: one each, in the root group, owned by no
			// user (userId 0).
			for _, path := range []string{"/api/v2/tms", "/api/v2/glossaries"} {
				for q, n := range map[string]int{"groupId=0": 1, "groupId=3": 0, "userId=0": 1, "userId=13": 0, "orderBy=name desc": 1} {
					k, v, _ := strings.Cut(q, "=")
					status, body := get(t, hs, path, url.Values{k: {v}})
					require.Equal(t, http.StatusOK, status, "%s %s: %v", path, q, body)
					require.Len(t, body["data"], n, "%s %s", path, q)
				}
				refusedWith(t, g, path, url.Values{"orderBy": {"terms"}}, "orderBy")
			}
		})
	}
}
