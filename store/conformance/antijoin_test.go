package compile_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/croql/croql/schema"
	"github.com/croql/croql/store"
)

// antiJoinProject is a project for "no element matches P" written as an
// uncorrelated anti-join (`key NOT IN (SELECT fk ... WHERE P)`): strings
// whose translations match the seed's filters for some strings only
// (German or French, with votes, approvals, both or neither), strings with
// no translation and no comment, duplicates listing their master's
// translations, and comments by users the directory knows and by one it
// does not. carol made nothing.
func antiJoinProject() *schema.Project {
	tr := func(id int64, lang string, user int64, votes, approvals int) schema.Translation {
		t := schema.Translation{ID: id, Text: "t " + lang, PluralForm: "none", Language: lang, User: user, Added: 1700000000, Updated: 1700000000}
		for range votes {
			t.Votes = append(t.Votes, schema.Vote{Mark: "up", User: 2, Added: 1700000000})
		}
		for range approvals {
			t.Approvals = append(t.Approvals, schema.Approval{User: 1, Added: 1700000000})
		}
		return t
	}
	cm := func(id, user int64) schema.Comment {
		return schema.Comment{ID: id, Text: "c", User: user, Added: 1700000000}
	}
	type str struct {
		trs      []schema.Translation
		comments []schema.Comment
		dup      bool
	}
	strs := []str{
		{},
		{trs: []schema.Translation{tr(101, "de", 1, 0, 0)}},
		{trs: []schema.Translation{tr(102, "de", 1, 1, 0), tr(103, "fr", 2, 0, 0)}, comments: []schema.Comment{cm(1, 1)}},
		{trs: []schema.Translation{tr(104, "fr", 2, 0, 1), tr(105, "de", 2, 0, 0)}, comments: []schema.Comment{cm(2, 2), cm(3, 999)}},
		{trs: []schema.Translation{tr(106, "de", 1, 2, 1)}},
		{trs: []schema.Translation{tr(102, "de", 1, 1, 0), tr(103, "fr", 2, 0, 0)}, dup: true}, // a duplicate of string 3
		{trs: []schema.Translation{tr(101, "de", 1, 0, 0)}, dup: true},                         // a duplicate of string 2
		{trs: []schema.Translation{tr(107, "fr", 999, 1, 1)}, comments: []schema.Comment{cm(4, 999)}},
		{comments: []schema.Comment{cm(5, 1)}},
	}
	p := &schema.Project{Name: "anti", SourceLanguage: "en", TargetLanguages: []string{"de", "fr"},
		Users: []schema.UserRef{{ID: 1, Login: "alice"}, {ID: 2, Login: "bob"}, {ID: 3, Login: "carol"}}}
	for i, s := range strs {
		p.Strings = append(p.Strings, schema.SourceString{ID: int64(i + 1), Type: "plain", Text: "s", Identifier: "s",
			Translations: s.trs, Comments: s.comments, IsDuplicate: s.dup, Added: 1700000000})
	}
	return p
}

// antiJoinQueries are counts of filtered elements compared with zero that
// the whole-set form writes as an anti-join on SQLite (the whole
// condition, or that of a semi-join's elements), beside their neighbours
// that keep the correlated form. %s is a login.
var antiJoinQueries = []string{
	`count of translations where (language = @language:"de" and (count of approvals > 0 or count of votes > 0)) = 0`,
	`count of translations where (language = @language:"fr") = 0`,
	`count of translations where (language = @language:"es") = 0`,
	`count of translations where (user = @user:"%s") = 0`,
	`not (count of translations where (user = @user:"%s") > 0)`,
	`count of translations where (user != @user:"%s") = 0`,
	`count of translations where (user = @user:"%s") < 1`,
	`count of comments where (user = @user:"%s") = 0`,
	`count of comments where (not (user = @user:"%s")) = 0`,
	`count of translations where (count of votes where (user = @user:"%s") = 0) > 0`,
	`count of translations where (count of approvals where (user = @user:"%s") = 0 and language = @language:"de") > 0`,
	`count of translations where (language = @language:"de") = 0 and is duplicate`,
	`count of translations where (language = @language:"de") = 0 or count of comments where (user = @user:"%s") = 0`,
	`not (count of translations where (language = @language:"de") = 0)`,
	`count of translations where (text = identifier) = 0`,
}

// TestDifferentialAntiJoin runs antiJoinQueries for every login (one with
// elements, one with none, one the directory lacks) over
// antiJoinProject with the evaluator and on every engine, for a page and
// for the whole set, with the mention resolved and left to the users
// table, and requires the same ids.
func TestDifferentialAntiJoin(t *testing.T) {
	p := antiJoinProject()
	dbs := map[string]*store.DB{}
	for _, e := range engines(t) {
		dbs[e] = openLoaded(t, e, p)
	}
	for _, login := range []string{"alice", "bob", "carol", "nobody"} {
		for _, src := range antiJoinQueries {
			userCountsCase(t, dbs, p, strings.ReplaceAll(src, "%s", login), fmt.Sprintf("login %s", login))
		}
	}
}
