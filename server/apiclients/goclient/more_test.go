package goclient_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/crowdin/crowdin-api-client-go/crowdin"
	"github.com/crowdin/crowdin-api-client-go/crowdin/model"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql"
	"github.com/croql/croql/internal/testdb"
	"github.com/croql/croql/schema"
)

// noOption records that the Go client cannot make call name of the JS
// suite: its options type typ has no field for the parameter param.
func (o outcomes) noOption(t *testing.T, name string, typ reflect.Type, param string) {
	t.Helper()
	for i := 0; i < typ.NumField(); i++ {
		n, _ := jsonName(typ.Field(i))
		require.NotEqual(t, param, n, "%s has %s", typ, param)
	}
	o[name] = "no `" + param + "` option in the client"
}

// TestGoClientParameters: the rest of the JS suite's calls through the Go
// client's own methods — each list parameter the client has an option
// for, against the evaluator on the equivalent croql — and the ones its
// options cannot express.
func TestGoClientParameters(t *testing.T) {
	p := demo(t)
	ctx := context.Background()
	plural := map[int]bool{}
	for _, s := range p.Strings {
		plural[int(s.ID)] = s.Type == "plural"
	}
	for _, eng := range testdb.Engines(t) {
		t.Run(eng, func(t *testing.T) {
			c, _ := serve(t, eng, p)
			o := outcomes{}
			// A strings list decodes only when its page has no plural string
			// (docs/serve.md); want is the evaluator's ids of the page.
			strs := func(name string, opts *model.SourceStringsListOptions, want []int) {
				t.Helper()
				got, _, err := c.SourceStrings.List(ctx, 1, opts)
				o.rec(name, err)
				if slices.ContainsFunc(want, func(id int) bool { return plural[id] }) {
					var ute *json.UnmarshalTypeError
					require.ErrorAs(t, err, &ute, name)
					return
				}
				require.NoError(t, err, name)
				ids := []int{}
				for _, s := range got {
					ids = append(ids, s.ID)
				}
				require.Equal(t, want, ids, name)
			}
			one := 1
			all := evalIDs(t, p, croql.Strings, "is hidden or not (is hidden)")
			strs("strings.all", &model.SourceStringsListOptions{ListOptions: model.ListOptions{Limit: 500}}, all)
			strs("strings.branchId", &model.SourceStringsListOptions{BranchID: 2, ListOptions: model.ListOptions{Limit: 500}}, evalIDs(t, p, croql.Strings, "id of branch = 2"))
			strs("strings.denormalizePlaceholders", &model.SourceStringsListOptions{DenormalizePlaceholders: &one, ListOptions: model.ListOptions{Limit: 500}}, all)
			strs("strings.filter", &model.SourceStringsListOptions{Filter: "checkout", ListOptions: model.ListOptions{Limit: 500}},
				evalIDs(t, p, croql.Strings, `identifier contains "checkout" or text contains "checkout" or context contains "checkout"`))
			strs("strings.paging", &model.SourceStringsListOptions{ListOptions: model.ListOptions{Limit: 7, Offset: 14}}, all[14:21])
			_, _, err := c.SourceStrings.List(ctx, 1, &model.SourceStringsListOptions{TaskID: 1})
			o.rec("strings.taskId", err)
			requireRefused(t, err, "taskId")
			o.noOption(t, "strings.orderBy", reflect.TypeFor[model.SourceStringsListOptions](), "orderBy")

			// Language translations: every string answered is one the
			// parameter keeps.
			trs := func(name string, opts *model.LanguageTranslationsListOptions, src string) {
				t.Helper()
				opts.Limit = 500
				got, _, err := c.StringTranslations.ListLanguageTranslations(ctx, 1, "de", opts)
				o.rec(name, err)
				require.NoError(t, err, name)
				require.NotEmpty(t, got, name)
				keep := evalIDs(t, p, croql.Strings, cmpOr(src, "is hidden or not (is hidden)"))
				for _, tr := range got {
					require.Contains(t, keep, tr.StringID, name)
				}
			}
			trs("translations.branchId", &model.LanguageTranslationsListOptions{BranchID: 2}, "id of branch = 2")
			trs("translations.fileId", &model.LanguageTranslationsListOptions{FileID: 1}, "id of file = 1")
			trs("translations.labelIds", &model.LanguageTranslationsListOptions{LabelIDs: []int{3}}, "count of labels where (id = 3) > 0")
			trs("translations.denormalizePlaceholders", &model.LanguageTranslationsListOptions{DenormalizePlaceholders: &one}, "")
			trs("translations.orderBy", &model.LanguageTranslationsListOptions{OrderBy: "stringId desc"}, "")
			trs("translations.croql", &model.LanguageTranslationsListOptions{CroQL: "count of votes > 0"}, "count of translations where (count of votes > 0) > 0")
			_, _, err = c.StringTranslations.ListLanguageTranslations(ctx, 1, "de", &model.LanguageTranslationsListOptions{StringIDs: []int{1}, CroQL: "count of votes > 0"})
			o.rec("translations.croql+stringIds", err)
			requireRefused(t, err, "stringIds")
			for _, param := range []string{"approvedOnly", "passedWorkflow", "minApprovalCount"} {
				o.noOption(t, "translations."+param, reflect.TypeFor[model.LanguageTranslationsListOptions](), param)
			}

			// Terms, TM segments.
			terms := func(name string, opts *model.TermsListOptions, src string) {
				t.Helper()
				opts.Limit = 500
				got, _, err := c.Glossaries.ListTerms(ctx, 1, opts)
				o.rec(name, err)
				require.NoError(t, err, name)
				var ids []int
				for _, x := range got {
					ids = append(ids, x.ID)
				}
				slices.Sort(ids)
				require.Equal(t, evalIDs(t, p, croql.Glossary, cmpOr(src, `text contains ""`)), ids, name)
			}
			terms("terms.all", &model.TermsListOptions{}, "")
			terms("terms.conceptId", &model.TermsListOptions{ConceptID: 800}, "concept = 800")
			terms("terms.userId", &model.TermsListOptions{UserID: 13}, "user = 13")
			terms("terms.croql", &model.TermsListOptions{CroQL: `text contains "e"`}, `text contains "e"`)
			terms("terms.orderBy", &model.TermsListOptions{OrderBy: "text"}, "")
			o.noOption(t, "terms.translationOfTermId", reflect.TypeFor[model.TermsListOptions](), "translationOfTermId")
			segs, _, err := c.TranslationMemory.ListTMSegments(ctx, 1, &model.TMSegmentsListOptions{ListOptions: model.ListOptions{Limit: 500}})
			o.rec("tm.segments", err)
			require.NoError(t, err)
			require.Len(t, segs, len(p.TMSegments))
			segs, _, err = c.TranslationMemory.ListTMSegments(ctx, 1, &model.TMSegmentsListOptions{OrderBy: "id desc", ListOptions: model.ListOptions{Limit: 500}})
			o.rec("tm.segments.orderBy", err)
			require.NoError(t, err)
			require.True(t, slices.IsSortedFunc(segs, func(a, b *model.TMSegment) int { return b.ID - a.ID }))

			checkGoFilesAndLabels(t, c, p, o)
			o.check(t)
		})
	}
}

// checkGoFilesAndLabels: the files, labels, projects and storages calls.
func checkGoFilesAndLabels(t *testing.T, c *crowdin.Client, p *schema.Project, o outcomes) {
	ctx := context.Background()
	files, _, err := c.SourceFiles.ListFiles(ctx, 1, &model.FileListOptions{Filter: "json"})
	o.rec("files.filter", err)
	require.NoError(t, err)
	for _, f := range files {
		require.Contains(t, f.Name, "json")
	}
	files, _, err = c.SourceFiles.ListFiles(ctx, 1, &model.FileListOptions{BranchID: 2})
	o.rec("files.branchId", err)
	require.NoError(t, err)
	for _, f := range files {
		require.Equal(t, 2, *f.BranchID)
	}
	files, _, err = c.SourceFiles.ListFiles(ctx, 1, &model.FileListOptions{OrderBy: "name desc"})
	o.rec("files.orderBy", err)
	require.NoError(t, err)
	require.Len(t, files, len(p.Files))
	require.True(t, slices.IsSortedFunc(files, func(a, b *model.File) int { return strings.Compare(b.Name, a.Name) }))
	labels, _, err := c.Labels.List(ctx, 1, &model.LabelsListOptions{OrderBy: "title desc"})
	o.rec("labels.orderBy", err)
	require.NoError(t, err)
	require.True(t, slices.IsSortedFunc(labels, func(a, b *model.Label) int { return strings.Compare(b.Title, a.Title) }))
	projects, _, err := c.Projects.List(ctx, &model.ProjectsListOptions{OrderBy: "name desc"})
	o.rec("projects.orderBy", err)
	require.NoError(t, err)
	require.Len(t, projects, 1)

	path := filepath.Join(t.TempDir(), "spare.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"x":"X"}`), 0o600))
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	stg, _, err := c.Storages.Add(ctx, f)
	o.rec("storages.add", err)
	require.NoError(t, err)
	list, _, err := c.Storages.List(ctx, nil)
	o.rec("storages.list", err)
	require.NoError(t, err)
	require.True(t, slices.ContainsFunc(list, func(s *model.Storage) bool { return s.ID == stg.ID }))
	got, _, err := c.Storages.Get(ctx, stg.ID)
	o.rec("storages.get", err)
	require.NoError(t, err)
	require.Equal(t, stg.ID, got.ID)
	_, _, err = c.SourceFiles.AddFile(ctx, 1, &model.FileAddRequest{StorageID: stg.ID, Name: "other.json", ExcludedTargetLanguages: []string{"de"}})
	o.rec("files.createFile.excludedTargetLanguages", err)
	requireRefused(t, err, "excludedTargetLanguages")
	_, err = c.Storages.Delete(ctx, stg.ID)
	o.rec("storages.delete", err)
	require.NoError(t, err)
	_, _, err = c.Storages.Get(ctx, stg.ID)
	o.rec("storages.deleted.get", err)
	require.Error(t, err)
}

// cmpOr is src, or all when src is "".
func cmpOr(src, all string) string {
	if src == "" {
		return all
	}
	return src
}
