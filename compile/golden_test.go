package compile_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql"
	"github.com/croql/croql/compile"
	"github.com/croql/croql/internal/corpus"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/typecheck"
)

var update = flag.Bool("update", false, "rewrite the golden SQL files under testdata/sql")

// goldenDialects are the dialects of the golden files, by directory name
// (testdata/sql/<Name()>). A new dialect adds itself here and runs
// `go test ./compile -run TestGolden -update`.
var goldenDialects = []compile.Dialect{compile.Postgres{}, compile.SQLite{}, compile.MySQL{}}

// repoRoot is the repository's top directory.
func repoRoot(t testing.TB) string {
	_, file, _, ok := runtime.Caller(0)
	require.True(t, ok)
	return filepath.Join(filepath.Dir(file), "..")
}

// goodCases are the corpus cases that check (warnings allowed).
func goodCases(t testing.TB) []corpus.Case {
	t.Helper()
	all, err := corpus.Load(filepath.Join(repoRoot(t), "testdata", "corpus"))
	require.NoError(t, err)
	return corpus.Good(all)
}

// checkCase checks a corpus case as the conformance tests do: its
// context, edition and folding, the fixed clock, mentions unresolved.
func checkCase(c corpus.Case) (*typecheck.Query, error) {
	ctx := c.Context()
	if ctx == "" {
		ctx = croql.Strings
	}
	ed := schema.Standard
	if c.Edition() == "enterprise" {
		ed = schema.Enterprise
	}
	clock := func() time.Time { return time.Date(2024, 6, 15, 12, 0, 0, 0, time.UTC) }
	env, err := croql.NewEnv(ctx, croql.WithEdition(ed), croql.WithClock(clock), croql.WithFoldContains(c.Get("fold") == "true"))
	if err != nil {
		return nil, err
	}
	q, diags := env.Check(c.Query())
	if diags.HasErrors() {
		return nil, diags.Err()
	}
	return q, nil
}

// compileCorpus compiles every good corpus case for d, grouped by corpus
// file. Mentions stay unresolved, so the SQL looks users up by login.
func compileCorpus(t *testing.T, d compile.Dialect) map[string][]corpus.Golden {
	m := compile.DefaultMapping(schema.New())
	out := map[string][]corpus.Golden{}
	for _, c := range goodCases(t) {
		q, err := checkCase(c)
		if err != nil {
			t.Errorf("%s: good corpus case %s does not check: %v", c.Where(), c.Name, err)
			continue
		}
		s, err := compile.Compile(q, d, m)
		require.NoError(t, err, "%s %s", c.Where(), c.Name)
		args, err := corpus.Args(s.Args)
		require.NoError(t, err)
		out[c.File] = append(out[c.File], corpus.Golden{Name: c.Name, Where: s.Where, Args: args})
	}
	return out
}

func formatGolden(d compile.Dialect, file string, gs []corpus.Golden) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "# Golden %s SQL of the good cases of testdata/corpus/%s.\n", d.Name(), file)
	b.WriteString("# Generated: go test ./compile -run TestGolden -update\n")
	for _, g := range gs {
		args, err := json.Marshal(g.Args)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "\ncase: %s\nwhere<<SQL\n%s\nSQL\nargs: %s\n", g.Name, g.Where, args)
	}
	return b.String(), nil
}

// TestGolden compares the SQL of every good corpus case with the golden
// file of each dialect (or rewrites them with -update). It needs no
// database: compile/engine/conformance's TestGoldenExecutes runs the same
// files on the engines.
func TestGolden(t *testing.T) {
	for _, d := range goldenDialects {
		t.Run(d.Name(), func(t *testing.T) {
			files := compileCorpus(t, d)
			require.NotEmpty(t, files, "no good corpus cases")
			for file, gs := range files {
				path := filepath.Join(repoRoot(t), "testdata", "sql", d.Name(), file)
				text, err := formatGolden(d, file, gs)
				require.NoError(t, err)
				if *update {
					require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
					require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
					continue
				}
				want, err := corpus.ReadGolden(path)
				require.NoError(t, err)
				byName := map[string]corpus.Golden{}
				for _, g := range want {
					byName[g.Name] = g
				}
				for _, g := range gs {
					w, ok := byName[g.Name]
					if !assert.True(t, ok, "%s: case %s has no golden SQL; run with -update", path, g.Name) {
						continue
					}
					assert.Equal(t, w.Where, g.Where, "%s: %s", path, g.Name)
					assert.Equal(t, corpus.Values(w.Args), corpus.Values(g.Args), "%s: %s args", path, g.Name)
				}
			}
		})
	}
}
