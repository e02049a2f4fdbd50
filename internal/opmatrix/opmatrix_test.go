package opmatrix_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/croql/croql/ast"
	"github.com/croql/croql/compile"
	"github.com/croql/croql/demo"
	"github.com/croql/croql/internal/opmatrix"
	"github.com/croql/croql/mapping"
	"github.com/croql/croql/parser"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/typecheck"
)

var update = flag.Bool("update", false, "rewrite the golden SQL of the operator matrix under testdata/opmatrix")

// dialects are the dialects of the golden files, testdata/opmatrix/<Name()>.txt.
var dialects = []compile.Dialect{compile.Postgres{}, compile.SQLite{}, compile.MySQL{}, compile.Vitess{}}

// checker parses and checks queries of the strings context.
type checker struct {
	cat *schema.Catalog
	ctx *schema.Context
}

func newChecker(t *testing.T) checker {
	cat := schema.New()
	ctx, ok := cat.Context(schema.CtxStrings)
	require.True(t, ok)
	return checker{cat, ctx}
}

// check parses and checks src.
func (c checker) check(src string) (*typecheck.Query, error) {
	tree, pd := parser.Parse(src)
	if pd.HasErrors() {
		return nil, pd.Err()
	}
	q := typecheck.Check(typecheck.Config{Catalog: c.cat, Context: c.ctx, Now: opmatrix.Clock}, src, tree)
	if q.Diags.HasErrors() {
		return nil, q.Diags.Err()
	}
	return q, nil
}

// objects are the strings the matrix evaluates on: the fixture, and a
// generated project.
func objects(t *testing.T, ctx *schema.Context) []any {
	p, err := schema.ReadProject(strings.NewReader(opmatrix.Fixture))
	require.NoError(t, err)
	objs := p.Objects(ctx)
	return append(objs, demo.Generate(demo.Options{Strings: 40, Seed: 3}).Objects(ctx)...)
}

// TestOperatorMatrix runs every operator of ast.Syntax, with absent
// operands, on the evaluator (optimised and plain) and requires it to
// give the reference interpreter's answer on every string; and compiles
// each to the SQL of every dialect, one query per operator and pair of
// operand classes, and requires the golden SQL.
func TestOperatorMatrix(t *testing.T) {
	c := newChecker(t)
	qs, cov, err := opmatrix.Queries(func(src string) bool { _, err := c.check(src); return err == nil })
	require.NoError(t, err)
	opmatrix.CheckCoverage(t, cov)
	if testing.Verbose() {
		for _, op := range ast.Ops() {
			t.Logf("operator %-9s %3d operand combinations, %3d of them with an absent operand", opmatrix.Name(op), cov[op].Combinations, cov[op].Absent)
		}
	}
	objs := objects(t, c.ctx)
	m := mapping.Default(c.cat)
	fails := &opmatrix.Failures{}
	golden := map[string]*strings.Builder{}
	seen := map[string]bool{}
	for _, d := range dialects {
		golden[d.Name()] = &strings.Builder{}
	}
	for _, mq := range qs {
		q, err := c.check(mq.Src)
		require.NoError(t, err, mq.Src)
		want, err := opmatrix.Reference(q, objs)
		if err != nil {
			fails.Add(mq, "the reference interpreter has no meaning for it (internal/refeval/ops.go)", err.Error())
		}
		opmatrix.Evaluate(fails, mq, q, objs, want)
		key := opmatrix.Name(mq.Op) + ": " + mq.Classes
		if mq.Form != 1 || seen[key] {
			continue
		}
		seen[key] = true
		for _, d := range dialects {
			s, err := compile.Compile(q, d, m)
			if err != nil {
				fails.Add(mq, "no "+d.Name()+" SQL for it (compile/ops.go)", err.Error())
				continue
			}
			fmt.Fprintf(golden[d.Name()], "-- operator %s (%s)\n%s\nWHERE %s\nARGS %v\n\n", opmatrix.Name(mq.Op), mq.Classes, mq.Src, s.Where, s.Args)
		}
	}
	fails.Report(t)
	for _, d := range dialects {
		compareGolden(t, d.Name(), golden[d.Name()].String())
	}
}

// compareGolden compares the matrix's SQL for dialect with its golden
// file, or rewrites the file with -update. A difference is reported per
// operator.
func compareGolden(t *testing.T, dialect, got string) {
	t.Helper()
	path := filepath.Join("..", "..", "testdata", "opmatrix", dialect+".txt")
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
		return
	}
	b, err := os.ReadFile(path)
	require.NoError(t, err, "no golden SQL: run go test ./internal/opmatrix -update")
	want := string(b)
	if want == got {
		return
	}
	gotOps, wantOps := byOperator(got), byOperator(want)
	for _, op := range ast.Ops() {
		g, w := gotOps[opmatrix.Name(op)], wantOps[opmatrix.Name(op)]
		switch {
		case w == "" && g != "":
			t.Errorf("operator %s: no golden %s SQL in %s: run go test ./internal/opmatrix -update and review it", opmatrix.Name(op), dialect, path)
		case g != w:
			t.Errorf("operator %s: its %s SQL differs from %s (run go test ./internal/opmatrix -update and review the difference):\n%s", opmatrix.Name(op), dialect, path, firstDiff(g, w))
		}
	}
	for k := range wantOps {
		if _, ok := gotOps[k]; !ok {
			t.Errorf("operator %s: in %s, and no longer in the matrix: run go test ./internal/opmatrix -update", k, path)
		}
	}
}

// byOperator splits a golden file into its operators' entries.
func byOperator(s string) map[string]string {
	out := map[string]string{}
	for _, e := range strings.SplitAfter(s, "\n\n") {
		head, _, _ := strings.Cut(e, "\n")
		op, _, ok := strings.Cut(strings.TrimPrefix(head, "-- operator "), " (")
		if ok {
			out[op] += e
		}
	}
	return out
}

// firstDiff shows the first entry where got and want differ.
func firstDiff(got, want string) string {
	g, w := strings.SplitAfter(got, "\n\n"), strings.SplitAfter(want, "\n\n")
	for i := 0; i < max(len(g), len(w)); i++ {
		var a, b string
		if i < len(g) {
			a = g[i]
		}
		if i < len(w) {
			b = w[i]
		}
		if a != b {
			return "got:\n" + a + "want:\n" + b
		}
	}
	return ""
}
