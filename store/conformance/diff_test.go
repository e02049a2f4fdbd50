package compile_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/schema"
	"github.com/croql/croql/store"
)

// edgeQueries are hand-written queries about absent values, empty
// collections, arithmetic and the other corners of language.md sections
// 3-5, over every context.
var edgeQueries = []struct {
	context, query string
	fold           bool
}{
	// nullable scalars: = is null-safe, != is not =, ordering false
	{"strings", `max length = max length`, false},
	{"strings", `max length != 10`, false},
	{"strings", `not (max length > 10)`, false},
	{"strings", `not (max length <= 10)`, false},
	{"strings", `max length between 5 and 20`, false},
	{"strings", `not (max length between 5 and 20)`, false},
	{"strings", `updated = updated`, false},
	{"strings", `not (updated > added)`, false},
	{"strings", `updated > added or not (updated > added)`, false},
	{"strings", `(max length > 10) = (max length > 10)`, false},
	{"strings", `(max length > 10) != is hidden`, false},
	{"strings", `(max length > 10) xor is hidden`, false},
	// arithmetic with absent values and division by zero
	{"strings", `max length + 1 > 10`, false},
	{"strings", `not (max length + 1 > 10)`, false},
	{"strings", `max length * 2 = 20 or max length - 1 = 4`, false},
	{"strings", `-max length < -10`, false},
	{"strings", `10 / (max length - max length) = 1`, false},
	{"strings", `not (10 / (max length - 10) > 0)`, false},
	{"strings", `count of translations / count of comments >= 1`, false},
	{"strings", `not (count of translations / count of comments >= 1)`, false},
	{"strings", `count of translations / 2 = 1.5`, false},
	{"strings", `count of translations * 1.5 > 2`, false},
	{"strings", `(count of translations - count of labels) / 2 between -1 and 1.5`, false},
	// members of absent objects
	{"strings", `title of file = title of file`, false},
	{"strings", `title of file != "App"`, false},
	{"strings", `not (name of file > "b")`, false},
	{"strings", `name of branch = "main"`, false},
	{"strings", `name of branch != "main"`, false},
	{"strings", `id of branch = id of branch`, false},
	{"strings", `not (id of file > 7)`, false},
	{"strings", `file with (title = "App")`, false},
	{"strings", `not (branch with (title = title))`, false},
	{"strings", `branch with (id > 0)`, false},
	{"strings", `not (file with (not (title = "App")))`, false},
	// if
	{"strings", `if max length > 10 then is hidden else not is hidden`, false},
	{"strings", `(if max length > 10 then 1 else 2) = 2`, false},
	{"strings", `(if is hidden then max length else 0) = 0`, false},
	{"strings", `(if is hidden then max length else 1.5) > 1`, false},
	{"strings", `not ((if is hidden then max length else 5) > 4)`, false},
	{"strings", `(if is duplicate then title of file else name of file) = "app.json"`, false},
	{"strings", `languages summary with (if translation updated then is approved else is translated)`, false},
	// counts and collections
	{"strings", `count of translations = 0`, false},
	{"strings", `0 = count of comments`, false},
	{"strings", `count of labels < 1`, false},
	{"strings", `1 <= count of screenshots`, false},
	{"strings", `count of translations >= 0`, false},
	{"strings", `count of translations < 3`, false},
	{"strings", `count of translations != 2 and 4 > count of comments`, false},
	{"strings", `count of translations where (language = @language:"de") >= 2`, false},
	{"strings", `2 = count of labels where (not is system)`, false},
	{"strings", `translations with (count of votes = 1 or count of approvals > 1)`, false},
	{"strings", `not (count of translations where (count of votes where (is up) >= 1) = 1)`, false},
	{"strings", `count of translations = -1 or count of comments > -1`, false},
	{"strings", `count of translations != 0 and 0 != count of comments`, false},
	{"strings", `count of translations > count of languages summary`, false},
	{"strings", `count of translations where (count of votes where (is up) > count of votes where (is down)) > 0`, false},
	{"strings", `translations with (votes with (user = user))`, false},
	{"strings", `translations where (is pre translated) with (provider = "tm")`, false},
	{"strings", `count of translations where (provider = "deepl") where (count of approvals = 0) >= 1`, false},
	{"strings", `count of translations where (provider != "deepl") = count of translations`, false},
	{"strings", `count of translations where (not (provider = "tm")) > 1`, false},
	{"strings", `languages summary with (translation updated)`, false},
	{"strings", `languages summary with (not translation updated)`, false},
	{"strings", `count of languages summary where (translation updated between '2023-01-01' and '2024-06-01') > 0`, false},
	{"strings", `count of languages summary where (translation updated > added) > 0`, false},
	{"strings", `labels with (is system) or count of labels where (title contains "a") = 2`, false},
	{"strings", `count of comments where (has issue and not has unresolved issue) > 0`, false},
	// counts kept on the rows: comparisons of numbers and of the
	// elements' own counts, in every form that holds of the same ints,
	// and near ones the mapping keeps no count of
	{"strings", `count of languages summary where (approvalsCount >= 1) = 2`, false},
	{"strings", `count of languages summary where (1 <= approvalsCount) > 0 and not is hidden`, false},
	{"strings", `count of languages summary where (approvalsCount >= 2) > 0`, false},
	{"strings", `count of languages summary where (rating > 0) = 0`, false},
	{"strings", `count of languages summary where (not (rating <= 0)) >= 2`, false},
	{"strings", `count of languages summary where (rating >= 0) > 0`, false},
	{"strings", `count of languages summary where (rating > 0 and approvalsCount > 0) > 0`, false},
	{"strings", `count of translations where (count of votes > 0) = 1`, false},
	{"strings", `count of translations where (count of approvals >= 1) > 0 or is hidden`, false},
	{"strings", `count of translations where (not (count of votes = 0)) < 2`, false},
	{"strings", `count of translations where (count of votes > 1) > 0`, false},
	{"strings", `count of translations where (count of approvals > 0) = count of translations`, false},
	{"translations", `count of votes > 0 and count of approvals = 0`, false},
	{"translations", `count of votes >= 2 or not (count of approvals != 1)`, false},
	{"strings", `comments with (translations with (user = 1) and user != 2)`, false},
	// users
	{"strings", `translations with (user with (login = "alice"))`, false},
	{"strings", `translations with (login of user = "bob")`, false},
	{"strings", `translations with (id of user = user)`, false},
	{"strings", `translations with (not (login of user = "bob"))`, false},
	{"strings", `translations with (user = 999999)`, false},
	{"strings", `translations with (user with (id > 2))`, false},
	// strings: exact code points, empty needles, contains
	{"strings", `text contains ""`, false},
	{"strings", `"" contains text`, false},
	{"strings", `"abc" contains "B"`, false},
	{"strings", `"abc" contains "B"`, true},
	{"strings", `text contains "welcome"`, true},
	{"strings", `text contains "WELCOME"`, true},
	{"strings", `text contains identifier or identifier contains text`, false},
	{"strings", `text > "M"`, false},
	{"strings", `text < "a"`, false},
	{"strings", `"a" < "B"`, false},
	{"strings", `"a" = "A"`, false},
	{"strings", `"a " = "a"`, false},
	{"strings", `identifier between "a" and "m"`, false},
	{"strings", `title of file contains "p"`, false},
	{"strings", `not (title of file contains "p")`, false},
	{"strings", `translations with (provider contains "")`, false},
	{"strings", `translations with (not (provider contains "m"))`, false},
	{"strings", `translations with (text contains "ä")`, true},
	{"strings", `translations with (text contains "Ü")`, true},
	// datetimes
	{"strings", `added < 'today'`, false},
	{"strings", `added between '2024-01-01' and '2024-01-31 23:59:59'`, false},
	{"strings", `updated >= '2024-01-15T00:00:00Z'`, false},
	{"strings", `updated != added and updated >= added`, false},
	// other contexts
	{"translations", `provider = "tm" or provider != "tm"`, false},
	{"translations", `not (provider > "d")`, false},
	{"translations", `count of votes where (is up) - count of votes where (is down) >= 1`, false},
	{"translations", `approvals with (added > updated)`, false},
	{"translations", `user = @user:"alice" or count of votes where (user = @user:"bob") > 0`, false},
	{"tm", `count of records where (usageCount > 5 and updatedBy != createdBy) > 0`, false},
	{"tm", `records with (updatedAt > createdAt and usageCount * 2 > 3)`, false},
	{"tm", `count of records where (text contains "e") = count of records`, false},
	{"glossary", `status = "preferred" or not (status = "preferred")`, false},
	{"glossary", `partOfSpeech = partOfSpeech and gender != "feminine"`, false},
	{"glossary", `not (updatedAt > createdAt)`, false},
	{"glossary", `language = @language:"de" and concept > 0`, false},
	{"glossary", `user with (login = "alice") or lemma contains "x"`, false},
	{"concepts", `translatable and not (updatedAt < createdAt)`, false},
	{"concepts", `user = @user:"bob" or definition contains "the"`, false},
	{"concepts", `subject = "" or url contains "http"`, false},
}

// projects are the data every differential test runs over.
func projects(t *testing.T) map[string]*schema.Project {
	return map[string]*schema.Project{
		"demo":  demoProject(),
		"small": loadFixture(t, "small"),
	}
}

// TestDifferential runs every good corpus query and every edge query over
// the demo project and the small fixture with the evaluator and on every
// available engine, and requires the same ids everywhere.
func TestDifferential(t *testing.T) {
	type query struct {
		name string
		src  string
		opts checkOpts
	}
	var qs []query
	for _, c := range goodCases(t) {
		if _, err := tryCheck(c.Query(), caseOpts(c)); err != nil {
			// The parser's and checker's own tests report this.
			t.Errorf("%s: good corpus case %s does not check: %v", c.Where(), c.Name, err)
			continue
		}
		qs = append(qs, query{name: c.Name, src: c.Query(), opts: caseOpts(c)})
	}
	for i, e := range edgeQueries {
		qs = append(qs, query{name: fmt.Sprintf("edge-%d", i), src: e.query, opts: checkOpts{context: e.context, fold: e.fold, edition: schema.Enterprise}})
	}
	for pname, p := range projects(t) {
		dbs := map[string]*store.DB{}
		for _, e := range engines(t) {
			dbs[e] = openLoaded(t, e, p)
		}
		t.Run(pname, func(t *testing.T) {
			for _, x := range qs {
				o := x.opts
				o.users = p.UserIDs()
				q, err := tryCheck(x.src, o)
				if err != nil {
					// A login the project lacks: the SQL engines must still
					// agree with each other (the mention stays unresolved).
					o.users = nil
					q = check(t, x.src, o)
					var first []int64
					for e, db := range dbs {
						ids := runSQL(t, db, q)
						if first == nil {
							first = ids
						}
						assert.Equal(t, first, ids, "%s (%s) on %s, unresolved mention", x.name, x.src, e)
					}
					continue
				}
				want := evalIDs(t, q, p)
				for e, db := range dbs {
					assert.Equal(t, want, runSQL(t, db, q), "%s: %q on %s", x.name, x.src, e)
				}
				// The same query with its @user mentions left to the users
				// table.
				o.users = nil
				uq := check(t, x.src, o)
				for e, db := range dbs {
					assert.Equal(t, want, runSQL(t, db, uq), "%s: %q on %s, mentions unresolved", x.name, x.src, e)
				}
			}
		})
	}
}

// TestFixtureIDs checks the hand-worked ids of the corpus (`ids:` over
// `fixture: small`) on every store.
func TestFixtureIDs(t *testing.T) {
	p := loadFixture(t, "small")
	var dbs []*store.DB
	for _, e := range engines(t) {
		dbs = append(dbs, openLoaded(t, e, p))
	}
	n := 0
	for _, c := range goodCases(t) {
		if c.Get("fixture") != "small" || !c.Has("ids") {
			continue
		}
		n++
		want := []int64{}
		if v := c.Get("ids"); v != "none" {
			var id int64
			for _, f := range splitFields(v) {
				_, err := fmt.Sscan(f, &id)
				require.NoError(t, err, c.Where())
				want = append(want, id)
			}
		}
		o := caseOpts(c)
		o.users = p.UserIDs()
		q := check(t, c.Query(), o)
		for _, db := range dbs {
			assert.Equal(t, want, runSQL(t, db, q), "%s %s on %s", c.Where(), c.Name, db.Dialect.Name())
		}
	}
	require.Positive(t, n, "no fixture cases in the corpus")
}

func splitFields(s string) []string {
	var out []string
	cur := ""
	for _, r := range s {
		if r == ' ' || r == ',' || r == '\t' {
			if cur != "" {
				out = append(out, cur)
			}
			cur = ""
			continue
		}
		cur += string(r)
	}
	if cur != "" {
		out = append(out, cur)
	}
	return out
}
