package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/croql/croql"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/server"
)

// jsResult is one call of server/apiclients/js/suite.js.
type jsResult struct {
	OK        bool     `json:"ok"`
	IDs       []int64  `json:"ids"`
	StringIDs []*int64 `json:"stringIds"`
	Texts     []any    `json:"texts"`
	Status    int      `json:"status"`
	Key       string   `json:"key"`
	Message   string   `json:"message"`
	// TranslationIDs, Ratings, Names and Titles are the objects' fields of
	// those names (names: name, username or subject).
	TranslationIDs []int64  `json:"translationIds"`
	Ratings        []*int64 `json:"ratings"`
	Names          []any    `json:"names"`
	Titles         []any    `json:"titles"`
}

// TestJSClient runs the platform's JavaScript API client
// (@crowdin/crowdin-api-client 1.58.0, server/apiclients/js) against croql
// serve over loopback on every engine: every call's ids equal the
// evaluator's on the equivalent croql, every refusal is a 400 naming its
// parameter, every object has every field the client's type declarations
// declare, and the two-step upload lands. It needs node and `npm ci` in
// server/apiclients/js; without them it skips, unless
// CROQL_REQUIRE_NODE=1 (CI). The client × operation matrix it measured
// is logged (go test -v).
func TestJSClient(t *testing.T) {
	node, dir := jsClient(t)
	p := demo(t)
	for _, eng := range engines(t) {
		t.Run(eng, func(t *testing.T) {
			ctx := context.Background()
			var st *server.Storage
			var err error
			if eng == "sqlite" {
				st, err = server.LoadSQLite(ctx, t.TempDir(), p)
			} else {
				st, err = server.LoadServer(ctx, eng, dsnOf(eng), p)
			}
			require.NoError(t, err)
			hs := platformServer(t, st)

			cctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
			defer cancel()
			m := marksOf(p)
			tr := votedTranslation(m)
			cmd := exec.CommandContext(cctx, node, "suite.js", hs.URL, token, itoa(int(m.strOf[tr.ID])), itoa(int(p.Users[0].ID)),
				itoa(int(tr.ID)), itoa(int(m.stringWithComments)), itoa(int(m.strOf[approvedTranslation(m).ID])), itoa(int(approvedTranslation(m).ID)))
			cmd.Dir = dir
			var stderr strings.Builder
			cmd.Stderr = &stderr
			b, err := cmd.Output()
			require.NoError(t, err, "node suite.js: %s", stderr.String())
			var out struct {
				Results map[string]jsResult `json:"results"`
				Missing []string            `json:"missing"`
			}
			require.NoError(t, json.Unmarshal(b, &out), "%s", b)
			require.Empty(t, out.Missing, "fields the JS client declares and croql serve does not send")
			checkJSResults(t, p, out.Results)
			checkJSMatrix(t, out.Results)
		})
	}
}

func checkJSResults(t *testing.T, p *schema.Project, res map[string]jsResult) {
	t.Helper()
	sorted := func(ids []int64) []int64 {
		s := slices.Clone(ids)
		slices.Sort(s)
		return s
	}
	works := func(name string, want []int64) {
		t.Helper()
		r, ok := res[name]
		require.True(t, ok, name)
		require.True(t, r.OK, "%s: %d %s", name, r.Status, r.Message)
		if want != nil {
			require.Equal(t, want, sorted(r.IDs), name)
		}
	}
	refused := func(name, key string) {
		t.Helper()
		r, ok := res[name]
		require.True(t, ok, name)
		require.False(t, r.OK, name)
		require.Equal(t, http.StatusBadRequest, r.Status, "%s: %s", name, r.Message)
		require.Equal(t, key, r.Key, "%s: %s", name, r.Message)
	}
	ev := func(ctx, src string) []int64 { return evalIDs(t, p, ctx, "", src) }
	strs := func(keep func(*schema.SourceString) bool) []int64 {
		return topTranslations(p, "de", translationsOfStrings(t, p, "de", keep))
	}

	works("projects.list", []int64{1})
	works("projects.get", []int64{1})
	works("projects.orderBy", []int64{1})
	refused("projects.hasManagerAccess", "hasManagerAccess")

	works("strings.all", ev(croql.Strings, ""))
	works("strings.croql", ev(croql.Strings, "is hidden"))
	refused("strings.badCroql", "croql")
	works("strings.fileId", ev(croql.Strings, "id of file = 1"))
	works("strings.branchId", ev(croql.Strings, "id of branch = 2"))
	works("strings.labelIds", ev(croql.Strings, "count of labels where (id = 3 or id = 1) > 0"))
	works("strings.filter", ev(croql.Strings, `identifier contains "checkout" or text contains "checkout" or context contains "checkout"`))
	works("strings.filter.scope", ev(croql.Strings, `identifier contains "button"`))
	works("strings.denormalizePlaceholders", ev(croql.Strings, ""))
	works("strings.orderBy", ev(croql.Strings, ""))
	byIdent := slices.Clone(p.Strings)
	sort.SliceStable(byIdent, func(i, j int) bool {
		if byIdent[i].Identifier != byIdent[j].Identifier {
			return byIdent[i].Identifier > byIdent[j].Identifier
		}
		return byIdent[i].ID < byIdent[j].ID
	})
	var want []int64
	for _, s := range byIdent {
		want = append(want, s.ID)
	}
	require.Equal(t, want, res["strings.orderBy"].IDs, "orderBy identifier desc")
	require.Equal(t, ev(croql.Strings, "")[14:21], res["strings.paging"].IDs)
	refused("strings.directoryId", "directoryId")
	refused("strings.taskId", "taskId")
	refused("strings.croql+fileId", "fileId")
	works("strings.get", []int64{8})
	require.Equal(t, http.StatusNotFound, res["strings.get.missing"].Status)

	allDe := strs(func(*schema.SourceString) bool { return true })
	works("translations.all", allDe)
	works("translations.stringIds", strs(func(s *schema.SourceString) bool { return s.ID == 1 || s.ID == 2 || s.ID == 8 }))
	works("translations.labelIds", strs(func(s *schema.SourceString) bool {
		return slices.ContainsFunc(s.Labels, func(l schema.Label) bool { return l.ID == 3 })
	}))
	works("translations.fileId", strs(func(s *schema.SourceString) bool { return s.File != nil && s.File.ID == 1 }))
	works("translations.branchId", strs(func(s *schema.SourceString) bool { return s.Branch != nil && s.Branch.ID == 2 }))
	works("translations.passedWorkflow", strs(func(s *schema.SourceString) bool { return s.IsPassedWorkflow }))
	works("translations.approvedOnly", topTranslations(p, "de", evalIDs(t, p, croql.Translations, "de", "count of approvals > 0")))
	works("translations.minApprovalCount", topTranslations(p, "de", evalIDs(t, p, croql.Translations, "de", "count of approvals >= 1")))
	works("translations.croql", topTranslations(p, "de", evalIDs(t, p, croql.Translations, "de", "count of votes > 0")))
	works("translations.denormalizePlaceholders", allDe)
	works("translations.orderBy", allDe)
	sids := res["translations.orderBy"].StringIDs
	require.True(t, slices.IsSortedFunc(sids, func(a, b *int64) int { return int(*b - *a) }), "stringId desc")
	refused("translations.directoryId", "directoryId")
	refused("translations.croql+stringIds", "stringIds")

	works("tm.list", []int64{1})
	works("tm.get", []int64{1})
	works("tm.segments", ev(croql.TM, ""))
	works("tm.segments.croql", ev(croql.TM, "count of records where (usageCount > 5) > 0"))
	segs := ev(croql.TM, "")
	slices.Reverse(segs)
	require.Equal(t, segs, res["tm.segments.orderBy"].IDs, "orderBy id desc")
	works("tm.segment.get", []int64{3000})

	works("glossary.list", []int64{1})
	works("glossary.get", []int64{1})
	works("terms.all", ev(croql.Glossary, ""))
	works("terms.languageId", ev(croql.Glossary, `language = @language:"de"`))
	works("terms.userId", ev(croql.Glossary, "user = 13"))
	works("terms.conceptId", ev(croql.Glossary, "concept = 800"))
	works("terms.croql", ev(croql.Glossary, `text contains "e"`))
	works("terms.orderBy", ev(croql.Glossary, ""))
	refused("terms.translationOfTermId", "translationOfTermId")
	refused("terms.croql+languageId", "languageId")
	works("terms.get", []int64{9001})

	var files, branch2, jsonFiles []int64
	inBranch2 := map[int64]bool{}
	for _, s := range p.Strings {
		if s.File != nil && s.Branch != nil && s.Branch.ID == 2 {
			inBranch2[s.File.ID] = true
		}
	}
	for _, f := range p.Files {
		files = append(files, f.ID)
		if strings.Contains(f.Name, "json") {
			jsonFiles = append(jsonFiles, f.ID)
		}
	}
	// A file's branch is its strings' lowest branch id.
	for _, f := range p.Files {
		lowest := int64(0)
		for _, s := range p.Strings {
			if s.File != nil && s.File.ID == f.ID && s.Branch != nil && (lowest == 0 || s.Branch.ID < lowest) {
				lowest = s.Branch.ID
			}
		}
		if lowest == 2 {
			branch2 = append(branch2, f.ID)
		}
	}
	works("files.list", files)
	works("files.branchId", branch2)
	works("files.filter", jsonFiles)
	works("files.orderBy", files)
	refused("files.directoryId", "directoryId")
	works("files.get", []int64{1})

	var labels []int64
	seen := map[int64]bool{}
	for _, s := range p.Strings {
		for _, l := range s.Labels {
			if !seen[l.ID] {
				seen[l.ID] = true
				labels = append(labels, l.ID)
			}
		}
	}
	slices.Sort(labels)
	works("labels.list", labels)
	works("labels.orderBy", labels)
	works("labels.get", []int64{1})

	works("progress.project", nil)
	require.Len(t, res["progress.project"].IDs, len(p.TargetLanguages))
	works("progress.language", nil)
	require.Len(t, res["progress.language"].IDs, len(p.Files))
	works("progress.file", nil)
	require.Len(t, res["progress.file"].IDs, len(p.TargetLanguages))

	works("upload.storage", nil)
	works("upload.createFile", nil)
	works("upload.strings", nil)
	require.Len(t, res["upload.strings"].IDs, 2)
	works("upload.translationStorage", nil)
	works("upload.uploadTranslation", nil)
	works("upload.translations", nil)
	require.Equal(t, []any{"Hallo aus JS"}, res["upload.translations"].Texts)

	refused("files.createFile.nameInUse", "name")
	refused("files.createFile.excludedTargetLanguages", "excludedTargetLanguages")
	works("files.updateOrRestoreFile", res["upload.createFile"].IDs)
	works("files.updated.strings", nil)
	require.Len(t, res["files.updated.strings"].IDs, 2)
	require.Contains(t, res["files.updated.strings"].IDs, *res["upload.translations"].StringIDs[0], "an unchanged string keeps its id")
	require.ElementsMatch(t, []any{"Hello from JS", "Later"}, res["files.updated.strings"].Texts)
	works("files.updated.translations", nil)
	require.Equal(t, []any{"Hallo aus JS"}, res["files.updated.translations"].Texts, "its translation stays")
	refused("files.restore", "revisionId")
	works("files.plural.createFile", nil)
	works("files.plural.strings", nil)
	require.Equal(t, []any{map[string]any{"one": "One apple", "other": "{n} apples"}}, res["files.plural.strings"].Texts)
	works("files.deleteFile", nil)
	require.Equal(t, http.StatusNotFound, res["files.deleted.get"].Status)
	checkJSReads(t, p, res, works, refused)

	// The matrix, measured: which calls work and which are refused.
	names := make([]string, 0, len(res))
	for n := range res {
		names = append(names, n)
	}
	slices.Sort(names)
	var b strings.Builder
	for _, n := range names {
		r := res[n]
		if r.OK {
			fmt.Fprintf(&b, "%-40s works (%d objects)\n", n, len(r.IDs))
		} else {
			fmt.Fprintf(&b, "%-40s %d %s\n", n, r.Status, r.Key)
		}
	}
	t.Log("JS client × operation:\n" + b.String())
}
