package compile_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/compile"
	"github.com/croql/croql/internal/corpus"
	"github.com/croql/croql/schema"
)

// dialects are the dialects of the golden files, by directory name.
var dialects = []compile.Dialect{compile.Postgres{}, compile.SQLite{}, compile.MySQL{}}

// golden is one case of a golden file (written by go test ./compile
// -run TestGolden -update, which compares them without a database).
type golden struct {
	name  string
	where string
	args  []typedArg
}

// typedArg keeps an argument's Go type through JSON.
type typedArg struct {
	Int    *int64   `json:"int,omitempty"`
	Float  *float64 `json:"float,omitempty"`
	String *string  `json:"string,omitempty"`
}

func untyped(args []typedArg) []any {
	out := make([]any, len(args))
	for i, a := range args {
		switch {
		case a.Int != nil:
			out[i] = *a.Int
		case a.Float != nil:
			out[i] = *a.Float
		case a.String != nil:
			out[i] = *a.String
		}
	}
	return out
}

func readGolden(t *testing.T, path string) []golden {
	data, err := os.ReadFile(path)
	require.NoError(t, err, "missing golden file: run go test ./compile -run TestGolden -update")
	cases, err := corpus.Parse(filepath.Base(path), string(data))
	require.NoError(t, err)
	var out []golden
	for _, c := range cases {
		var args []typedArg
		require.NoError(t, json.Unmarshal([]byte(c.Get("args")), &args), "%s", c.Where())
		out = append(out, golden{name: c.Name, where: c.Get("where"), args: args})
	}
	return out
}

// TestGoldenExecutes runs every golden file's SQL, as written in the file,
// on its engine over the small fixture and the demo project, and compares
// the ids with the evaluator's.
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
			require.NotEmpty(t, files, "no golden files for %s", d.Name())
			m := compile.DefaultMapping(schema.New())
			for _, f := range files {
				for _, g := range readGolden(t, f) {
					c, ok := cases[g.name]
					if !ok {
						t.Errorf("%s: golden case %s is not a good corpus case", f, g.name)
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
					s.Where, s.Args = g.where, untyped(g.args)
					got, err := s.Run(t.Context(), db.SQL)
					if assert.NoError(t, err, "%s: %s", f, g.name) && want != nil {
						assert.Equal(t, want, got, "%s: %s over %s", f, g.name, pname)
					}
				}
			}
		}
	}
}
