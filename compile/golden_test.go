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
	"github.com/croql/croql/mapping"
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

// compileCorpus compiles every good corpus case for d and purpose p,
// grouped by corpus file. Mentions stay unresolved, so the SQL looks users
// up by login.
func compileCorpus(t *testing.T, d compile.Dialect, p compile.Purpose) map[string][]corpus.Golden {
	m := mapping.Default(schema.New())
	out := map[string][]corpus.Golden{}
	for _, c := range goodCases(t) {
		q, err := checkCase(c)
		if err != nil {
			t.Errorf("%s: good corpus case %s does not check: %v", c.Where(), c.Name, err)
			continue
		}
		s, err := compile.CompileFor(q, d, m, p)
		require.NoError(t, err, "%s %s", c.Where(), c.Name)
		args, err := corpus.Args(s.Args)
		require.NoError(t, err)
		g := corpus.Golden{Name: c.Name, Where: s.Where, Args: args}
		if s.Count != nil {
			g.Count = s.Count.SQL
			g.CountArgs, err = corpus.Args(s.Count.Args)
			require.NoError(t, err)
		}
		out[c.File] = append(out[c.File], g)
	}
	return out
}

// pageOnly keeps, of each file's page-purpose SQL, the cases whose text
// differs from the whole-set SQL: the page golden files hold only those.
func pageOnly(page, whole map[string][]corpus.Golden) map[string][]corpus.Golden {
	out := map[string][]corpus.Golden{}
	for file, gs := range page {
		for i, g := range gs {
			if w := whole[file][i]; w.Name != g.Name || w.Where != g.Where {
				out[file] = append(out[file], g)
			}
		}
	}
	return out
}

func formatGolden(d compile.Dialect, p compile.Purpose, file string, gs []corpus.Golden) (string, error) {
	var b strings.Builder
	if p == compile.Page {
		fmt.Fprintf(&b, "# Golden %s SQL for a page (compile.Page) of the good cases of testdata/corpus/%s\n# whose page SQL differs from the whole-set SQL in the directory above.\n", d.Name(), file)
	} else {
		fmt.Fprintf(&b, "# Golden %s SQL of the good cases of testdata/corpus/%s.\n", d.Name(), file)
	}
	b.WriteString("# Generated: go test ./compile -run TestGolden -update\n")
	for _, g := range gs {
		args, err := json.Marshal(g.Args)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "\ncase: %s\nwhere<<SQL\n%s\nSQL\nargs: %s\n", g.Name, g.Where, args)
		if g.Count != "" {
			cargs, err := json.Marshal(g.CountArgs)
			if err != nil {
				return "", err
			}
			fmt.Fprintf(&b, "count<<SQL\n%s\nSQL\ncountArgs: %s\n", g.Count, cargs)
		}
	}
	return b.String(), nil
}

// TestGolden compares the SQL of every good corpus case with the golden
// file of each dialect (or rewrites them with -update): the whole-set SQL
// in testdata/sql/<dialect>, and under page/ the page SQL of the cases
// where it differs. It needs no database: store/conformance's
// TestGoldenExecutes runs the same files on the engines.
func TestGolden(t *testing.T) {
	for _, d := range goldenDialects {
		t.Run(d.Name(), func(t *testing.T) {
			whole := compileCorpus(t, d, compile.WholeSet)
			require.NotEmpty(t, whole, "no good corpus cases")
			golden(t, d, compile.WholeSet, whole, filepath.Join(repoRoot(t), "testdata", "sql", d.Name()))
			page := pageOnly(compileCorpus(t, d, compile.Page), whole)
			golden(t, d, compile.Page, page, filepath.Join(repoRoot(t), "testdata", "sql", d.Name(), "page"))
			if !*update {
				// A page file without a differing case is stale.
				stale, err := filepath.Glob(filepath.Join(repoRoot(t), "testdata", "sql", d.Name(), "page", "*.txt"))
				require.NoError(t, err)
				for _, f := range stale {
					assert.Contains(t, page, filepath.Base(f), "%s: no case of it has its own page SQL any more; run with -update and delete it", f)
				}
			}
		})
	}
}

// golden compares the SQL of files, compiled for d and purpose p, with
// the golden files in dir (or writes them with -update).
func golden(t *testing.T, d compile.Dialect, p compile.Purpose, files map[string][]corpus.Golden, dir string) {
	for file, gs := range files {
		path := filepath.Join(dir, file)
		text, err := formatGolden(d, p, file, gs)
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
			assert.Equal(t, w.Count, g.Count, "%s: %s count", path, g.Name)
			assert.Equal(t, corpus.Values(w.CountArgs), corpus.Values(g.CountArgs), "%s: %s count args", path, g.Name)
		}
	}
}
