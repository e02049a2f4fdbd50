package compile_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/store"
)

// userCountsProject is a project for the questions the user of every
// translation a string's row keeps answers (mapping.SoleKey): strings
// with no translation, with one or several by one user, by several users,
// duplicates listing their master's translations, and translations by a
// user the directory does not know. carol made no translation. allBy,
// when not zero, is the user of every translation instead.
func userCountsProject(allBy int64) *schema.Project {
	tr := func(id, user int64) schema.Translation {
		return schema.Translation{ID: id, Text: "t", PluralForm: "none", Language: "de", User: user, Added: 1700000000, Updated: 1700000000}
	}
	lists := [][]schema.Translation{
		nil,
		{tr(101, 1)},
		{tr(102, 1), tr(103, 1)},
		{tr(104, 1), tr(105, 2)},
		{tr(106, 2)},
		{tr(102, 1), tr(103, 1)}, // a duplicate of string 3
		{tr(104, 1), tr(105, 2)}, // a duplicate of string 4
		{tr(107, 2), tr(108, 2), tr(109, 2)},
		{tr(110, 999)},
		{tr(111, 1), tr(112, 999)},
		nil,
	}
	p := &schema.Project{Name: "users", SourceLanguage: "en", TargetLanguages: []string{"de"},
		Users: []schema.UserRef{{ID: 1, Login: "alice"}, {ID: 2, Login: "bob"}, {ID: 3, Login: "carol"}}}
	for i, l := range lists {
		if allBy != 0 {
			for j := range l {
				l[j].User = allBy
			}
		}
		s := schema.SourceString{ID: int64(i + 1), Type: "plain", Text: "s", Identifier: "s", Translations: l, Added: 1700000000,
			IsDuplicate: i == 5 || i == 6}
		p.Strings = append(p.Strings, s)
	}
	return p
}

// userCountsQueries are the questions about the user of every
// translation, in the forms that read the row's user and count, and
// their neighbours that do not.
var userCountsQueries = []string{
	`count of translations > 0 and count of translations = count of translations where (user = @user:"%s")`,
	`count of translations where (user = @user:"%s") = count of translations and count of translations > 0`,
	`count of translations = count of translations where (user = @user:"%s")`,
	`count of translations != count of translations where (user = @user:"%s")`,
	`not (count of translations > 0 and count of translations = count of translations where (user = @user:"%s"))`,
	`count of translations where (user != @user:"%s") > 0`,
	`count of translations where (not (user = @user:"%s")) > 0`,
	`count of translations where (@user:"%s" != user) >= 1`,
	`count of translations where (user != @user:"%s") = 0`,
	`not (count of translations where (user != @user:"%s") > 0)`,
	`count of translations where (user != @user:"%s") > 0 or is duplicate`,
	`count of translations where (user != @user:"%s") > 0 and count of translations > 1`,
	`(count of translations > 0 and count of translations = count of translations where (user = @user:"%s")) = is duplicate`,
	`count of translations > 0 and count of translations = count of translations where (user = @user:"%s") and count of translations where (user != @user:"%s") > 0`,
	`count of translations > 0 and count of translations = count of translations where (user = @user:"%s") or identifier = "x"`,
	`count of translations where (user = @user:"%s") > 0 and count of translations where (user != @user:"%s") = 0`,
}

// TestDifferentialUserCounts runs userCountsQueries for every user (one
// with translations, one with none, one the directory lacks) over
// userCountsProject, mixed and with every translation by one user, with
// the evaluator and on every engine, both with the mention resolved and
// left to the users table, and requires the same ids. It also checks that
// the row's user column is what the loader and store.RefreshCounts write.
func TestDifferentialUserCounts(t *testing.T) {
	for _, allBy := range []int64{0, 1} {
		p := userCountsProject(allBy)
		dbs := map[string]*store.DB{}
		for _, e := range engines(t) {
			dbs[e] = openLoaded(t, e, p)
			checkSoleColumn(t, dbs[e], p, false)
			checkSoleColumn(t, dbs[e], p, true)
		}
		for _, login := range []string{"alice", "bob", "carol", "nobody"} {
			for _, src := range userCountsQueries {
				src = strings.ReplaceAll(src, "%s", login)
				userCountsCase(t, dbs, p, src, fmt.Sprintf("all by %d", allBy))
			}
		}
	}
}

// userCountsCase runs src over p with the evaluator and on every
// database of dbs, with its mentions resolved and left to the users
// table, and requires the same ids (the engines' own where the directory
// lacks a login: no translation is by it).
func userCountsCase(t *testing.T, dbs map[string]*store.DB, p *schema.Project, src, what string) {
	t.Helper()
	o := checkOpts{users: p.UserIDs(), edition: schema.Enterprise}
	q, err := tryCheck(src, o)
	var want []int64
	if err == nil {
		want = evalIDs(t, q, p)
	}
	o.users = nil
	uq := check(t, src, o)
	for e, db := range dbs {
		got := runSQL(t, db, uq)
		if q == nil {
			if want == nil {
				want = got
			}
			assert.Equal(t, want, got, "%q on %s (%s), unknown login", src, e, what)
			continue
		}
		assert.Equal(t, want, got, "%q on %s (%s), mention unresolved", src, e, what)
		assert.Equal(t, want, runSQL(t, db, q), "%q on %s (%s)", src, e, what)
	}
}

// checkSoleColumn checks the user of every translation kept on each
// string's row of db against p: the loader's value, or with refresh the
// value store.RefreshCounts writes over a cleared column.
func checkSoleColumn(t *testing.T, db *store.DB, p *schema.Project, refresh bool) {
	t.Helper()
	ctx := context.Background()
	m := mapping.Default(schema.New())
	col := db.Dialect.Quote(m.Tables["source string"].Sole("user", "translations"))
	if refresh {
		_, err := db.SQL.ExecContext(ctx, "UPDATE strings SET "+col+" = NULL")
		require.NoError(t, err)
		require.NoError(t, store.RefreshCounts(ctx, db.SQL, db.Dialect, m, "", ""))
	}
	want := map[int64]*int64{}
	for _, s := range p.Strings {
		var u *int64
		for i, tr := range s.Translations {
			if i == 0 {
				v := tr.User
				u = &v
			} else if *u != tr.User {
				u = nil
				break
			}
		}
		want[s.ID] = u
	}
	rows, err := db.SQL.QueryContext(ctx, "SELECT id, "+col+" FROM strings")
	require.NoError(t, err)
	defer rows.Close()
	n := 0
	for rows.Next() {
		var id int64
		var u *int64
		require.NoError(t, rows.Scan(&id, &u))
		assert.Equal(t, want[id], u, "%s: string %d (refreshed: %v)", db.Dialect.Name(), id, refresh)
		n++
	}
	require.NoError(t, rows.Err())
	assert.Equal(t, len(p.Strings), n, db.Dialect.Name())
}
