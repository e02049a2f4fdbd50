package goclient_test

import (
	"context"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/crowdin/crowdin-api-client-go/crowdin"
	"github.com/crowdin/crowdin-api-client-go/crowdin/model"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/internal/testdb"
	"github.com/croql/croql/schema"
)

// demoTranslations are the demo's translations once each, with the
// string they were made for.
func demoTranslations(p *schema.Project) (map[int64]schema.Translation, map[int64]int64) {
	trs, strOf := map[int64]schema.Translation{}, map[int64]int64{}
	for _, s := range p.Strings {
		for _, tr := range s.Translations {
			if _, ok := trs[tr.ID]; !ok {
				trs[tr.ID], strOf[tr.ID] = tr, s.ID
			}
		}
	}
	return trs, strOf
}

// TestGoClientReads: the project's other data through the Go client's
// own methods (string translations, approvals, votes, comments, members,
// directories, branches, glossary concepts, editFile), their answers
// against the demo, the refusals as the client's ValidationErrorResponse,
// and every field of the client's models in croql serve's answers.
func TestGoClientReads(t *testing.T) {
	p := demo(t)
	trs, strOf := demoTranslations(p)
	var tr schema.Translation
	votes, approvals := 0, 0
	for _, x := range trs {
		votes += len(x.Votes)
		approvals += len(x.Approvals)
		if len(x.Votes) > 0 && x.Language == "de" && (tr.ID == 0 || x.ID < tr.ID) {
			tr = x
		}
	}
	sid := strOf[tr.ID]
	var ofString []int
	for id, x := range trs {
		if strOf[id] == sid && x.Language == "de" {
			ofString = append(ofString, int(id))
		}
	}
	slices.Sort(ofString)
	ctx := context.Background()
	for _, eng := range testdb.Engines(t) {
		t.Run(eng, func(t *testing.T) {
			c, base := serve(t, eng, p)
			o := outcomes{}
			for path, typ := range map[string]reflect.Type{
				"/api/v2/projects/1/translations?stringId=" + itoa(sid) + "&languageId=de": reflect.TypeFor[model.Translation](),
				"/api/v2/projects/1/translations/" + itoa(tr.ID):                           reflect.TypeFor[model.Translation](),
				"/api/v2/projects/1/approvals?limit=500":                                   reflect.TypeFor[model.Approval](),
				"/api/v2/projects/1/votes?limit=500":                                       reflect.TypeFor[model.Vote](),
				"/api/v2/projects/1/comments?limit=500":                                    reflect.TypeFor[model.StringComment](),
				"/api/v2/projects/1/members":                                               reflect.TypeFor[model.ProjectMember](),
				"/api/v2/projects/1/branches":                                              reflect.TypeFor[model.Branch](),
				"/api/v2/glossaries/1/concepts":                                            reflect.TypeFor[model.Concept](),
			} {
				// The enterprise member's fields (omitempty in the model)
				// are not sent: croql serve's members are the platform's.
				skip := map[string]bool{"firstName": true, "lastName": true, "isManager": true, "isDeveloper": true,
					"managerOfGroup": true, "accessToAllWorkflowSteps": true, "givenAccessAt": true}
				objs := raw(t, base, path)
				require.NotEmpty(t, objs, path)
				for _, o := range objs {
					require.Empty(t, missing(typ, o, "", skip), "%s: %v", path, o)
				}
			}

			// String translations.
			st, _, err := c.StringTranslations.ListStringTranslations(ctx, 1, &model.StringTranslationsListOptions{StringID: int(sid), LanguageID: "de"})
			o.rec("stringTranslations.list", err)
			require.NoError(t, err)
			var ids []int
			for _, x := range st {
				ids = append(ids, x.ID)
				require.NotNil(t, x.User)
			}
			require.Equal(t, ofString, ids)
			one, _, err := c.StringTranslations.GetTranslation(ctx, 1, int(tr.ID), nil)
			o.rec("stringTranslations.get", err)
			require.NoError(t, err)
			require.Equal(t, tr.Text, one.Text)
			up := 0
			for _, v := range tr.Votes {
				if v.Mark == "up" {
					up++
				} else {
					up--
				}
			}
			require.Equal(t, up, one.Rating)
			_, _, err = c.StringTranslations.ListStringTranslations(ctx, 1, &model.StringTranslationsListOptions{LanguageID: "de"})
			o.rec("stringTranslations.noStringId", err)
			requireRefused(t, err, "stringId")

			// Approvals and votes.
			ap, _, err := c.StringTranslations.ListApprovals(ctx, 1, &model.ApprovalsListOptions{ListOptions: model.ListOptions{Limit: 500}})
			o.rec("approvals.all", err)
			require.NoError(t, err)
			require.Len(t, ap, approvals)
			vs, _, err := c.StringTranslations.ListVotes(ctx, 1, &model.VotesListOptions{TranslationID: int(tr.ID)})
			o.rec("votes.translationId", err)
			require.NoError(t, err)
			require.Len(t, vs, len(tr.Votes))
			for _, v := range vs {
				require.Equal(t, int(tr.ID), v.TranslationID)
				require.NotEmpty(t, v.VotedAt)
			}
			vs, _, err = c.StringTranslations.ListVotes(ctx, 1, &model.VotesListOptions{ListOptions: model.ListOptions{Limit: 500}})
			o.rec("votes.all", err)
			require.NoError(t, err)
			require.Len(t, vs, votes)
			_, _, err = c.StringTranslations.GetVote(ctx, 1, 1)
			o.rec("votes.get", err)
			requireRefused(t, err, "voteId")
			_, _, err = c.StringTranslations.GetApproval(ctx, 1, 1)
			o.rec("approvals.get", err)
			requireRefused(t, err, "approvalId")

			// Comments.
			comments, issues := 0, 0
			for _, s := range p.Strings {
				comments += len(s.Comments)
				for _, cm := range s.Comments {
					if cm.HasIssue {
						issues++
					}
				}
			}
			cs, _, err := c.StringComments.List(ctx, 1, &model.StringCommentsListOptions{ListOptions: model.ListOptions{Limit: 500}})
			o.rec("comments.all", err)
			require.NoError(t, err)
			require.Len(t, cs, comments)
			cs, _, err = c.StringComments.List(ctx, 1, &model.StringCommentsListOptions{Type: "issue", ListOptions: model.ListOptions{Limit: 500}})
			o.rec("comments.type", err)
			require.NoError(t, err)
			require.Len(t, cs, issues)
			for _, cm := range cs {
				require.Equal(t, "issue", cm.Type)
				require.Contains(t, []string{"resolved", "unresolved"}, cm.IssueStatus)
				require.Equal(t, cm.StringID, cm.String.ID)
			}
			_, _, err = c.StringComments.List(ctx, 1, &model.StringCommentsListOptions{IssueType: []string{"source_mistake"}})
			o.rec("comments.issueType", err)
			requireRefused(t, err, "issueType")
			_, _, err = c.StringComments.Get(ctx, 1, 1)
			o.rec("comments.get", err)
			requireRefused(t, err, "stringCommentId")

			// Members, directories, branches, concepts.
			ms, _, err := c.Users.ListProjectMembers(ctx, 1, nil)
			o.rec("members.list", err)
			require.NoError(t, err)
			require.Len(t, ms, len(p.Users))
			m, _, err := c.Users.GetProjectMember(ctx, 1, int(p.Users[1].ID))
			o.rec("members.get", err)
			require.NoError(t, err)
			require.Equal(t, p.Users[1].Login, m.Username)
			_, _, err = c.Users.ListProjectMembers(ctx, 1, &model.ProjectMembersListOptions{Role: "manager"})
			o.rec("members.role", err)
			requireRefused(t, err, "role")
			ds, _, err := c.SourceFiles.ListDirectories(ctx, 1, nil)
			o.rec("directories.list", err)
			require.NoError(t, err)
			require.Empty(t, ds)
			_, _, err = c.SourceFiles.GetDirectory(ctx, 1, 1)
			o.rec("directories.get", err)
			var er *model.ErrorResponse
			require.ErrorAs(t, err, &er)
			require.Equal(t, http.StatusNotFound, er.Response.StatusCode)
			bs, _, err := c.Branches.List(ctx, 1, &model.BranchesListOptions{Name: p.Branches[1].Name})
			o.rec("branches.name", err)
			require.NoError(t, err)
			require.Len(t, bs, 1)
			require.Equal(t, int(p.Branches[1].ID), bs[0].ID)
			b, _, err := c.Branches.Get(ctx, 1, int(p.Branches[0].ID))
			o.rec("branches.get", err)
			require.NoError(t, err)
			require.Equal(t, p.Branches[0].Name, b.Name)
			cps, _, err := c.Glossaries.ListConcepts(ctx, 1, &model.ConceptsListOptions{ListOptions: model.ListOptions{Limit: 3, Offset: 2}})
			o.rec("concepts.paging", err)
			require.NoError(t, err)
			require.Len(t, cps, 3)
			require.Equal(t, int(p.GlossaryConcepts[2].ID), cps[0].ID)
			cp, _, err := c.Glossaries.GetConcept(ctx, 1, int(p.GlossaryConcepts[0].ID))
			o.rec("concepts.get", err)
			require.NoError(t, err)
			require.Equal(t, p.GlossaryConcepts[0].Subject, cp.Subject)

			// editFile: title and context are written, other paths refused.
			f, _, err := c.SourceFiles.EditFile(ctx, 1, 1, []*model.UpdateRequest{{Op: model.OpReplace, Path: "/title", Value: "Edited from Go"}})
			o.rec("files.editFile", err)
			require.NoError(t, err)
			require.Equal(t, "Edited from Go", *f.Title)
			_, _, err = c.SourceFiles.EditFile(ctx, 1, 1, []*model.UpdateRequest{{Op: model.OpReplace, Path: "/priority", Value: "high"}})
			o.rec("files.editFile.priority", err)
			requireRefused(t, err, "priority")
			_, _, err = c.SourceFiles.ListFileRevisions(ctx, 1, 1, nil)
			o.rec("files.revisions", err)
			requireRefused(t, err, "fileId")
			got, _, err := c.SourceFiles.GetFile(ctx, 1, 1)
			o.rec("files.edited.get", err)
			require.NoError(t, err)
			require.Equal(t, "Edited from Go", *got.Title)
			checkGoMarks(t, c, p, o, tr, ofString)
			o.check(t)
		})
	}
}

// checkGoMarks: the other parameters of the approvals, votes, comments,
// members, branches and concepts lists, and a string's translations in
// id order.
func checkGoMarks(t *testing.T, c *crowdin.Client, p *schema.Project, o outcomes, tr schema.Translation, ofString []int) {
	ctx := context.Background()
	st, _, err := c.StringTranslations.ListStringTranslations(ctx, 1, &model.StringTranslationsListOptions{StringID: ofStringID(p, tr.ID), LanguageID: "de", OrderBy: "id desc"})
	o.rec("stringTranslations.orderBy", err)
	require.NoError(t, err)
	var ids []int
	for _, x := range st {
		ids = append(ids, x.ID)
	}
	rev := slices.Clone(ofString)
	slices.Reverse(rev)
	require.Equal(t, rev, ids)
	trs, strOf := demoTranslations(p)
	var approved schema.Translation
	for id, x := range trs {
		if len(x.Approvals) > 0 && x.Language == "de" && (approved.ID == 0 || id < approved.ID) {
			approved = x
		}
	}
	ap, _, err := c.StringTranslations.ListApprovals(ctx, 1, &model.ApprovalsListOptions{TranslationID: int(approved.ID)})
	o.rec("approvals.translationId", err)
	require.NoError(t, err)
	require.Len(t, ap, len(approved.Approvals))
	require.Equal(t, int(strOf[approved.ID]), ap[0].StringID)
	for _, x := range []struct {
		name string
		opts *model.ApprovalsListOptions
	}{
		{"approvals.stringId", &model.ApprovalsListOptions{StringID: int(strOf[approved.ID]), LanguageID: "de"}},
		{"approvals.fileId", &model.ApprovalsListOptions{FileID: 1, LanguageID: "de"}},
		{"approvals.labelIds", &model.ApprovalsListOptions{LabelIDs: []int{3}}},
	} {
		x.opts.Limit = 500
		got, _, err := c.StringTranslations.ListApprovals(ctx, 1, x.opts)
		o.rec(x.name, err)
		require.NoError(t, err, x.name)
		for _, a := range got {
			require.NotZero(t, a.TranslationID)
			require.NotNil(t, a.User)
		}
	}
	vs, _, err := c.StringTranslations.ListVotes(ctx, 1, &model.VotesListOptions{StringID: ofStringID(p, tr.ID), LanguageID: "de"})
	o.rec("votes.stringId", err)
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(vs), len(tr.Votes))
	sid, unresolved, n := 0, 0, 0
	for _, s := range p.Strings {
		for _, cm := range s.Comments {
			if sid == 0 {
				sid = int(s.ID)
			}
			if s.ID == int64(sid) {
				n++
			}
			if cm.HasUnresolvedIssue {
				unresolved++
			}
		}
	}
	cs, _, err := c.StringComments.List(ctx, 1, &model.StringCommentsListOptions{StringID: sid})
	o.rec("comments.stringId", err)
	require.NoError(t, err)
	require.Len(t, cs, n)
	cs, _, err = c.StringComments.List(ctx, 1, &model.StringCommentsListOptions{Type: "issue", IssueStatus: "unresolved", ListOptions: model.ListOptions{Limit: 500}})
	o.rec("comments.issues", err)
	require.NoError(t, err)
	require.Len(t, cs, unresolved)
	ms, _, err := c.Users.ListProjectMembers(ctx, 1, &model.ProjectMembersListOptions{Search: "ALI"})
	o.rec("members.search", err)
	require.NoError(t, err)
	require.Len(t, ms, 1)
	require.Equal(t, "alice", ms[0].Username)
	bs, _, err := c.Branches.List(ctx, 1, nil)
	o.rec("branches.list", err)
	require.NoError(t, err)
	require.Len(t, bs, len(p.Branches))
	cps, _, err := c.Glossaries.ListConcepts(ctx, 1, nil)
	o.rec("concepts.list", err)
	require.NoError(t, err)
	require.Len(t, cps, len(p.GlossaryConcepts))
	cps, _, err = c.Glossaries.ListConcepts(ctx, 1, &model.ConceptsListOptions{OrderBy: "subject desc"})
	o.rec("concepts.orderBy", err)
	require.NoError(t, err)
	require.True(t, slices.IsSortedFunc(cps, func(a, b *model.Concept) int { return strings.Compare(b.Subject, a.Subject) }))
}

// ofStringID is the string translation id was made for.
func ofStringID(p *schema.Project, id int64) int {
	_, strOf := demoTranslations(p)
	return int(strOf[id])
}
