package compile_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/compile"
	"github.com/croql/croql/internal/corpus"
	"github.com/croql/croql/schema"
)

var update = flag.Bool("update", false, "rewrite the golden SQL files under testdata/sql")

// dialects are the dialects of the golden files, by directory name.
var dialects = []compile.Dialect{compile.Postgres{}, compile.SQLite{}, compile.MySQL{}}

// golden is one compiled case of a golden file.
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

func typed(args []any) ([]typedArg, error) {
	out := make([]typedArg, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case int64:
			out[i].Int = &v
		case float64:
			out[i].Float = &v
		case string:
			out[i].String = &v
		default:
			return nil, fmt.Errorf("argument %d is %T", i, a)
		}
	}
	return out, nil
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

// goldenPath is testdata/sql/<dialect>/<corpus file>.
func goldenPath(t testing.TB, d compile.Dialect, file string) string {
	return filepath.Join(root(t), "testdata", "sql", d.Name(), file)
}

// compileCorpus compiles every good corpus case for d, grouped by corpus
// file. Mentions stay unresolved, so the SQL looks users up by login.
func compileCorpus(t *testing.T, d compile.Dialect) map[string][]golden {
	m := compile.DefaultMapping(schema.New())
	out := map[string][]golden{}
	for _, c := range goodCases(t) {
		q, err := tryCheck(c.Query(), caseOpts(c))
		if err != nil {
			t.Errorf("%s: good corpus case %s does not check: %v", c.Where(), c.Name, err)
			continue
		}
		s, err := compile.Compile(q, d, m)
		require.NoError(t, err, "%s %s", c.Where(), c.Name)
		args, err := typed(s.Args)
		require.NoError(t, err)
		out[c.File] = append(out[c.File], golden{name: c.Name, where: s.Where, args: args})
	}
	return out
}

func formatGolden(d compile.Dialect, file string, gs []golden) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "# Golden %s SQL of the good cases of testdata/corpus/%s.\n", d.Name(), file)
	b.WriteString("# Generated: go test ./compile -run TestGolden -update\n")
	for _, g := range gs {
		args, err := json.Marshal(g.args)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "\ncase: %s\nwhere<<SQL\n%s\nSQL\nargs: %s\n", g.name, g.where, args)
	}
	return b.String(), nil
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

// TestGolden compares the SQL of every good corpus case with the golden
// file of each dialect (or rewrites them with -update).
func TestGolden(t *testing.T) {
	for _, d := range dialects {
		t.Run(d.Name(), func(t *testing.T) {
			for file, gs := range compileCorpus(t, d) {
				path := goldenPath(t, d, file)
				text, err := formatGolden(d, file, gs)
				require.NoError(t, err)
				if *update {
					require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
					require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
					continue
				}
				want := readGolden(t, path)
				byName := map[string]golden{}
				for _, g := range want {
					byName[g.name] = g
				}
				for _, g := range gs {
					w, ok := byName[g.name]
					if !assert.True(t, ok, "%s: case %s has no golden SQL; run with -update", path, g.name) {
						continue
					}
					assert.Equal(t, w.where, g.where, "%s: %s", path, g.name)
					assert.Equal(t, untyped(w.args), untyped(g.args), "%s: %s args", path, g.name)
				}
			}
		})
	}
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
