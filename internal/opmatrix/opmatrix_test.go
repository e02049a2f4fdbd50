package opmatrix_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/croql/croql/ast"
	"github.com/croql/croql/compile"
	"github.com/croql/croql/demo"
	"github.com/croql/croql/eval"
	"github.com/croql/croql/internal/refeval"
	"github.com/croql/croql/mapping"
	"github.com/croql/croql/parser"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/typecheck"
)

var update = flag.Bool("update", false, "rewrite the golden SQL of the operator matrix under testdata/opmatrix")

// dialects are the dialects of the golden files, testdata/opmatrix/<Name()>.txt.
var dialects = []compile.Dialect{compile.Postgres{}, compile.SQLite{}, compile.MySQL{}, compile.Vitess{}}

// fixture's strings take every operand of operands both with a value and
// absent: max length set (5, 0, -3) and not, a file with a title, one
// without, and none, updated set and not, an empty text.
const fixture = `{"name": "operator matrix", "sourceLanguageId": "en", "strings": [
{"id": 1, "type": "plain", "text": "abc", "identifier": "a", "context": "", "maxLength": 5, "isHidden": false,
 "file": {"id": 7, "name": "a.json", "title": "abc", "type": "json", "context": ""},
 "added": "2024-01-02 03:04:05", "updated": "2024-02-01 00:00:00"},
{"id": 2, "type": "plain", "text": "", "identifier": "b", "context": "", "maxLength": null, "isHidden": true,
 "file": null, "added": "2023-12-31 23:59:59", "updated": null},
{"id": 3, "type": "plain", "text": "xabcx", "identifier": "c", "context": "", "maxLength": 0, "isHidden": false,
 "file": {"id": 8, "name": "b.json", "title": null, "type": "json", "context": ""},
 "added": "2024-01-01 00:00:00", "updated": null},
{"id": 4, "type": "plain", "text": "ab", "identifier": "d", "context": "", "maxLength": -3, "isHidden": true,
 "file": {"id": 7, "name": "a.json", "title": "abc", "type": "json", "context": ""},
 "added": "2024-01-01 00:00:00", "updated": "2023-06-01 12:00:00"}
]}`

// operand is an operand of the strings context. class is its type, with
// a question mark when it may be absent: the golden SQL keeps the first
// query of each operator and pair of classes.
type operand struct {
	src, class string
	// absent is set for an operand that is absent on some string of the
	// fixture.
	absent bool
}

// operands are the operands the matrix combines: of every type, and for
// each the ways it can be absent (a nullable field, a member of an absent
// object, arithmetic on an absent value, a division by zero).
var operands = []operand{
	{`is hidden`, "bool", false},
	{`max length > 0`, "bool?", true}, // false where max length is absent (NULL in SQL)
	{`max length`, "int?", true},
	{`id of file`, "int?", true},
	{`count of translations`, "int", false},
	{`2`, "int", false},
	{`0`, "int", false},
	{`max length / 2`, "float?", true},
	{`2 / max length`, "float?", true}, // absent also where max length is 0
	{`1.5`, "float", false},
	{`text`, "string", false},
	{`title of file`, "string?", true}, // absent without a file and without a title
	{`"ab"`, "string", false},
	{`""`, "string", false},
	{`updated`, "datetime?", true},
	{`added`, "datetime", false},
	{`'2024-01-01'`, "datetime", false},
}

// query is one query of the matrix: an operator applied to operands, in
// a predicate form.
type query struct {
	op  ast.Op
	src string
	// classes is the operands' classes, the key of the golden SQL, and
	// form the predicate form (1: the expression or `>= 1` of a value).
	classes string
	form    int
	absent  bool
}

// name is how the matrix names op: its spelling, after "prefix" for a
// prefix operator (- is two operators).
func name(op ast.Op) string {
	if op.Role() == ast.RolePrefix {
		return "prefix " + op.String()
	}
	return op.String()
}

func clock() time.Time { return time.Date(2024, 6, 15, 12, 0, 0, 0, time.UTC) }

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
	q := typecheck.Check(typecheck.Config{Catalog: c.cat, Context: c.ctx, Now: clock}, src, tree)
	if q.Diags.HasErrors() {
		return nil, q.Diags.Err()
	}
	return q, nil
}

// queries builds, for every operator of ast.Syntax, the queries of every
// operand combination that checks. A combination whose expression is a
// value (arithmetic, negation) is tested through predicates that tell an
// absent result from each value. It fails the test for an operator no
// combination of which checks, or none with an absent operand.
func queries(t *testing.T, check func(string) (*typecheck.Query, error)) []query {
	var out []query
	for _, op := range ast.Ops() {
		n, absent := 0, 0
		add := func(expr, classes string, isAbsent bool) {
			forms := []string{expr, "not (" + expr + ")"}
			if _, err := check(expr); err != nil {
				// A value: >= 1 (false when absent), and the null test of
				// language.md (true only when absent).
				forms = []string{"(" + expr + ") >= 1", "not ((" + expr + ") >= 0 or (" + expr + ") < 0)"}
			}
			ok := false
			for i, f := range forms {
				if _, err := check(f); err == nil {
					out = append(out, query{op: op, src: f, classes: classes, form: i + 1, absent: isAbsent})
					ok = true
				}
			}
			if ok {
				n++
				if isAbsent {
					absent++
				}
			}
		}
		switch op.Role() {
		case ast.RolePrefix:
			for _, x := range operands {
				add(op.String()+" ("+x.src+")", x.class, x.absent)
			}
		case ast.RoleInfix:
			for _, x := range operands {
				for _, y := range operands {
					add("("+x.src+") "+op.String()+" ("+y.src+")", x.class+" "+y.class, x.absent || y.absent)
				}
			}
		default:
			t.Errorf("operator %s: role %d is neither infix nor prefix; the matrix does not know how to write it", name(op), op.Role())
		}
		switch {
		case n == 0:
			t.Errorf("operator %s: no operand combination type-checks: the checker has no rule for it (opRules, typecheck/ops.go), or operands lacks its operand types", name(op))
		case absent == 0:
			t.Errorf("operator %s: no combination with an absent operand type-checks", name(op))
		}
		if testing.Verbose() {
			t.Logf("operator %-9s %3d operand combinations, %3d of them with an absent operand", name(op), n, absent)
		}
	}
	return out
}

// objects are the strings the matrix evaluates on: the fixture, and a
// generated project.
func objects(t *testing.T, ctx *schema.Context) []any {
	p, err := schema.ReadProject(strings.NewReader(fixture))
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
	qs := queries(t, c.check)
	objs := objects(t, c.ctx)
	m := mapping.Default(c.cat)
	fails := &failures{}
	golden := map[string]*strings.Builder{}
	seen := map[string]bool{}
	for _, d := range dialects {
		golden[d.Name()] = &strings.Builder{}
	}
	for _, mq := range qs {
		q, err := c.check(mq.src)
		require.NoError(t, err, mq.src)
		want, err := reference(q, objs)
		if err != nil {
			fails.add(mq, "the reference interpreter has no meaning for it (internal/refeval/ops.go)", err.Error())
		}
		for _, plain := range []bool{false, true} {
			name := "the evaluator"
			var opts []eval.Option
			if plain {
				name, opts = "the evaluator without optimizations", []eval.Option{eval.WithoutOptimizations()}
			}
			prog, err := eval.Compile(q, opts...)
			if err != nil {
				fails.add(mq, name+" has no evaluation for it (eval/ops.go)", err.Error())
				continue
			}
			got := []int64{}
			for _, o := range objs {
				if prog.Match(o) {
					id, _ := schema.ObjectID(o)
					got = append(got, id)
				}
			}
			if want != nil && !slices.Equal(want, got) {
				fails.add(mq, name+" disagrees with the reference interpreter", fmt.Sprintf("ids %v, want %v", got, want))
			}
		}
		key := name(mq.op) + ": " + mq.classes
		if mq.form != 1 || seen[key] {
			continue
		}
		seen[key] = true
		for _, d := range dialects {
			s, err := compile.Compile(q, d, m)
			if err != nil {
				fails.add(mq, "no "+d.Name()+" SQL for it (compile/ops.go)", err.Error())
				continue
			}
			fmt.Fprintf(golden[d.Name()], "-- operator %s (%s)\n%s\nWHERE %s\nARGS %v\n\n", name(mq.op), mq.classes, mq.src, s.Where, s.Args)
		}
	}
	fails.report(t)
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
		g, w := gotOps[name(op)], wantOps[name(op)]
		switch {
		case w == "" && g != "":
			t.Errorf("operator %s: no golden %s SQL in %s: run go test ./internal/opmatrix -update and review it", name(op), dialect, path)
		case g != w:
			t.Errorf("operator %s: its %s SQL differs from %s (run go test ./internal/opmatrix -update and review the difference):\n%s", name(op), dialect, path, firstDiff(g, w))
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

// failures groups the failures of the matrix by operator and what failed,
// so that a missing piece reads as one line per layer.
type failures struct {
	keys  []string
	byKey map[string]*failure
}

type failure struct {
	n          int
	first, why string
}

func (f *failures) add(c query, what, why string) {
	key := fmt.Sprintf("operator %s: %s", name(c.op), what)
	if f.byKey == nil {
		f.byKey = map[string]*failure{}
	}
	if f.byKey[key] == nil {
		f.keys = append(f.keys, key)
		f.byKey[key] = &failure{first: c.src, why: why}
	}
	f.byKey[key].n++
}

func (f *failures) report(t *testing.T) {
	t.Helper()
	for _, k := range f.keys {
		x := f.byKey[k]
		t.Errorf("%s (%d queries), first %s: %s", k, x.n, x.first, x.why)
	}
}

// reference returns the ids of objs the reference interpreter matches q
// on, in order, or why it cannot evaluate q.
func reference(q *typecheck.Query, objs []any) (ids []int64, err error) {
	defer func() {
		if r := recover(); r != nil {
			ids, err = nil, fmt.Errorf("panic: %v", r)
		}
	}()
	var in refeval.Interp
	ids = []int64{}
	for _, o := range objs {
		hit, err := in.Match(q, o)
		if err != nil {
			return nil, err
		}
		if hit {
			id, _ := schema.ObjectID(o)
			ids = append(ids, id)
		}
	}
	return ids, nil
}
