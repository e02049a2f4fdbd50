package compile_test

// The operator × back-end matrix: every operator of ast.Syntax, on operands
// of every type the checker accepts for it, some of them absent, on the
// evaluator (optimised and plain), SQLite, PostgreSQL and MariaDB, each
// against the reference interpreter (internal/refeval). Nothing here lists
// the operators: a new row of ast.Syntax is in the matrix as soon as it
// exists, and fails it until the checker, the evaluator, the reference
// interpreter and the SQL compiler all handle it.
//
// The test keeps its own helpers (matrix*), apart from this package's
// shared ones.

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql"
	"github.com/croql/croql/ast"
	"github.com/croql/croql/compile"
	"github.com/croql/croql/eval"
	"github.com/croql/croql/internal/refeval"
	"github.com/croql/croql/internal/testdb"
	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/store"
	"github.com/croql/croql/typecheck"
)

// matrixProject's strings take every operand of matrixOperands both with a
// value and absent: max length set (5, 0, -3) and not, a file with a title,
// one without, and none, updated set and not, an empty text.
const matrixProject = `{"name": "operator matrix", "sourceLanguageId": "en", "strings": [
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

// matrixClock is the fixed 'today' of the matrix's queries.
func matrixClock() time.Time { return time.Date(2024, 6, 15, 12, 0, 0, 0, time.UTC) }

// matrixOperand is an operand of the strings context.
type matrixOperand struct {
	src string
	// absent is set for an operand that is absent on some string of
	// matrixProject.
	absent bool
}

// matrixOperands are the operands the matrix combines: of every type, and
// for each the ways it can be absent (a nullable field, a member of an
// absent object, arithmetic on an absent value, a division by zero).
var matrixOperands = []matrixOperand{
	{`is hidden`, false},
	{`max length > 0`, true}, // false where max length is absent
	{`max length`, true},
	{`id of file`, true},
	{`count of translations`, false},
	{`2`, false},
	{`0`, false},
	{`max length / 2`, true},
	{`2 / max length`, true}, // absent also where max length is 0
	{`1.5`, false},
	{`text`, false},
	{`title of file`, true}, // absent without a file and without a title
	{`"ab"`, false},
	{`""`, false},
	{`updated`, true},
	{`added`, false},
	{`'2024-01-01'`, false},
}

// matrixCase is one query of the matrix: an operator applied to operands,
// in a predicate form.
type matrixCase struct {
	op     ast.Op
	src    string
	absent bool // an operand is absent on some string
}

// matrixCases builds, for every operator of ast.Syntax, the queries of every
// operand combination that checks. A combination whose expression is a
// value (arithmetic, negation) is tested through predicates that tell an
// absent result from each value. It returns, per operator, the number of
// combinations that checked.
func matrixCases(t *testing.T) ([]matrixCase, map[ast.Op]int, map[ast.Op]int) {
	env, err := croql.NewEnv(croql.Strings, croql.WithClock(matrixClock))
	require.NoError(t, err)
	checks := func(src string) bool {
		_, diags := env.Check(src)
		return !diags.HasErrors()
	}
	var out []matrixCase
	combos, absent := map[ast.Op]int{}, map[ast.Op]int{}
	add := func(op ast.Op, expr string, isAbsent bool) {
		forms := []string{expr, "not (" + expr + ")"}
		if !checks(expr) {
			// A value: >= 1 (false when absent), and the null test of
			// language.md (true only when absent).
			forms = []string{"(" + expr + ") >= 1", "not ((" + expr + ") >= 0 or (" + expr + ") < 0)"}
		}
		n := 0
		for _, f := range forms {
			if checks(f) {
				out = append(out, matrixCase{op: op, src: f, absent: isAbsent})
				n++
			}
		}
		if n > 0 {
			combos[op]++
			if isAbsent {
				absent[op]++
			}
		}
	}
	for _, op := range ast.Ops() {
		var row *ast.Spelling
		for i := range ast.Syntax {
			if s := &ast.Syntax[i]; s.Op == op && !s.Alias {
				row = s
			}
		}
		require.NotNil(t, row, "operator %d: ast.Ops lists it but no row of ast.Syntax spells it", op)
		switch row.Role {
		case ast.RolePrefix:
			for _, x := range matrixOperands {
				add(op, row.Text+" ("+x.src+")", x.absent)
			}
		case ast.RoleInfix:
			for _, x := range matrixOperands {
				for _, y := range matrixOperands {
					add(op, "("+x.src+") "+row.Text+" ("+y.src+")", x.absent || y.absent)
				}
			}
		default:
			t.Errorf("operator %s: role %d is neither infix nor prefix; the matrix does not know how to write it", op, row.Role)
		}
	}
	return out, combos, absent
}

// TestOperatorMatrix runs every operator of ast.Syntax, with absent
// operands, on the evaluator, SQLite, PostgreSQL and MariaDB, and requires
// each to give the reference interpreter's answer on every string.
func TestOperatorMatrix(t *testing.T) {
	p, err := schema.ReadProject(strings.NewReader(matrixProject))
	require.NoError(t, err)
	cases, combos, absent := matrixCases(t)
	for _, op := range ast.Ops() {
		if combos[op] == 0 {
			t.Errorf("operator %s: no operand combination of the matrix type-checks: the checker has no rule for it, or matrixOperands lacks its operand types", op)
		} else if absent[op] == 0 {
			t.Errorf("operator %s: no combination with an absent operand type-checks", op)
		}
	}
	for _, op := range ast.Ops() {
		t.Logf("operator %-8s %3d operand combinations, %3d of them with an absent operand", op, combos[op], absent[op])
	}
	t.Logf("%d operators, %d queries", len(ast.Ops()), len(cases))

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	type backEnd struct {
		name string
		db   *store.DB
	}
	var dbs []backEnd
	for _, e := range testdb.Engines(t) {
		db, err := store.Open(ctx, e, testdb.DSN(e))
		require.NoError(t, err, "open %s", e)
		t.Cleanup(func() { assert.NoError(t, db.Close()) })
		require.NoError(t, store.Load(ctx, db, mapping.Default(schema.New()), p), "load %s", e)
		dbs = append(dbs, backEnd{e, db})
	}

	env, err := croql.NewEnv(croql.Strings, croql.WithClock(matrixClock))
	require.NoError(t, err)
	m := mapping.Default(schema.New())
	objs := p.Objects(env.Context())
	fails := &matrixFailures{}
	for _, c := range cases {
		q, diags := env.Check(c.src)
		require.False(t, diags.HasErrors(), "%q: %v", c.src, diags)

		// Without the reference's answer, the back ends are still run:
		// each one that lacks the operator says so.
		want, err := matrixRef(q, objs)
		if err != nil {
			fails.add(c, "the reference interpreter has no evaluation for it", err.Error())
		}
		for _, plain := range []bool{false, true} {
			name := "the evaluator"
			var opts []eval.Option
			if plain {
				name, opts = "the evaluator without optimizations", []eval.Option{eval.WithoutOptimizations()}
			}
			prog, err := eval.Compile(q, opts...)
			if err != nil {
				fails.add(c, name+" has no evaluation for it", err.Error())
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
				fails.add(c, name+" disagrees with the reference interpreter", fmt.Sprintf("ids %v, want %v", got, want))
			}
		}
		for _, b := range dbs {
			for _, purpose := range purposes {
				name := b.name + " (" + purpose.String() + ")"
				s, err := compile.CompileFor(q, b.db.Dialect, m, purpose)
				if err != nil {
					fails.add(c, "no "+name+" SQL for it", err.Error())
					continue
				}
				got, err := runPurpose(ctx, b.db, s, purpose)
				if err != nil {
					fails.add(c, "its "+name+" SQL fails", fmt.Sprintf("%v\nWHERE %s\nargs %v", err, s.Where, s.Args))
					continue
				}
				if got == nil {
					got = []int64{}
				}
				slices.Sort(got)
				if want != nil && !slices.Equal(want, got) {
					fails.add(c, name+" disagrees with the reference interpreter", fmt.Sprintf("ids %v, want %v\nWHERE %s\nargs %v", got, want, s.Where, s.Args))
				}
			}
		}
	}
	fails.report(t)
}

// matrixFailures groups the failures of the matrix by operator and what
// failed, so that a missing piece reads as one line per back end.
type matrixFailures struct {
	keys  []string
	byKey map[string]*matrixFailure
}

type matrixFailure struct {
	n          int
	first, why string
}

func (f *matrixFailures) add(c matrixCase, what, why string) {
	key := fmt.Sprintf("operator %s: %s", c.op, what)
	if f.byKey == nil {
		f.byKey = map[string]*matrixFailure{}
	}
	if f.byKey[key] == nil {
		f.keys = append(f.keys, key)
		f.byKey[key] = &matrixFailure{first: c.src, why: why}
	}
	f.byKey[key].n++
}

func (f *matrixFailures) report(t *testing.T) {
	t.Helper()
	for _, k := range f.keys {
		x := f.byKey[k]
		t.Errorf("%s (%d queries), first %s: %s", k, x.n, x.first, x.why)
	}
}

// matrixRef returns the ids of objs the reference interpreter matches q
// on, in order, or why it cannot evaluate q.
func matrixRef(q *typecheck.Query, objs []any) (ids []int64, err error) {
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
