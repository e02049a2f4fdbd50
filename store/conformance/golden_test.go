package compile_test

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/compile"
	"github.com/croql/croql/internal/corpus"
	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/store"
)

// dialects are the dialects of the golden files, by directory name.
var dialects = []compile.Dialect{compile.Postgres{}, compile.SQLite{}, compile.MySQL{}}

// TestGoldenExecutes runs every golden file's SQL (the whole-set and the
// page files), as written in the file, on its engine over the small
// fixture and the demo project, and compares the ids with the evaluator's.
func TestGoldenExecutes(t *testing.T) {
	cases := map[string]corpus.Case{}
	for _, c := range goodCases(t) {
		cases[c.Name] = c
	}
	avail := engines(t)
	for _, pname := range []string{"small", "demo"} {
		var p *schema.Project
		if pname == "small" {
			p = loadFixture(t, "small")
		} else {
			p = demoProject()
		}
		for _, d := range dialects {
			if !slices.Contains(avail, d.Name()) {
				continue
			}
			db := openLoaded(t, d.Name(), p)
			files, err := filepath.Glob(filepath.Join(root(t), "testdata", "sql", d.Name(), "*.txt"))
			require.NoError(t, err)
			// The page SQL of the cases where it differs (compile.Page).
			pages, err := filepath.Glob(filepath.Join(root(t), "testdata", "sql", d.Name(), "page", "*.txt"))
			require.NoError(t, err)
			require.NotEmpty(t, pages, "no page golden files for %s", d.Name())
			files = append(files, pages...)
			require.NotEmpty(t, files, "no golden files for %s", d.Name())
			m := mapping.Default(schema.New())
			for _, f := range files {
				gs, err := corpus.ReadGolden(f)
				require.NoError(t, err)
				for _, g := range gs {
					c, ok := cases[g.Name]
					if !ok {
						t.Errorf("%s: golden case %s is not a good corpus case", f, g.Name)
						continue
					}
					o := caseOpts(c)
					o.users = p.UserIDs()
					q, err := tryCheck(c.Query(), o)
					var want []int64
					if err == nil {
						want = evalIDs(t, q, p)
					} else {
						// A login the project lacks: nothing to compare
						// with, but the SQL must run.
						o.users = nil
						q = check(t, c.Query(), o)
					}
					s, err := compile.Compile(q, d, m)
					require.NoError(t, err)
					s.Where, s.Args = g.Where, corpus.Values(g.Args)
					got, err := store.RunSQL(t.Context(), db.SQL, s)
					if assert.NoError(t, err, "%s: %s", f, g.Name) && want != nil {
						assert.Equal(t, want, got, "%s: %s over %s", f, g.Name, pname)
					}
					if g.Count != "" {
						// The count from the elements' side counts what
						// the WHERE selects.
						var n int64
						err := db.SQL.QueryRowContext(t.Context(), g.Count, corpus.Values(g.CountArgs)...).Scan(&n)
						if assert.NoError(t, err, "%s: %s count", f, g.Name) {
							assert.Equal(t, int64(len(got)), n, "%s: %s count over %s", f, g.Name, pname)
						}
					}
				}
			}
		}
	}
}
