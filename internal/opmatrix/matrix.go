package opmatrix

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/croql/croql/ast"
	"github.com/croql/croql/eval"
	"github.com/croql/croql/internal/refeval"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/typecheck"
)

// Fixture's strings take every operand of Operands both with a value and
// absent: max length set (5, 0, -3) and not, a file with a title, one
// without, and none, updated set and not, an empty text.
const Fixture = `{"name": "operator matrix", "sourceLanguageId": "en", "strings": [
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

// Clock is the fixed 'today' of the matrix's queries.
func Clock() time.Time { return time.Date(2024, 6, 15, 12, 0, 0, 0, time.UTC) }

// Operand is an operand of the strings context. Class is its type, with a
// question mark when it may be absent: the golden SQL keeps the first
// query of each operator and pair of classes.
type Operand struct {
	Src, Class string
	// Absent is set for an operand that is absent on some string of
	// Fixture.
	Absent bool
}

// Operands are the operands the matrix combines: of every type, and for
// each the ways it can be absent (a nullable field, a member of an absent
// object, arithmetic on an absent value, a division by zero).
func Operands() []Operand {
	return []Operand{
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
}

// Query is one query of the matrix: an operator applied to operands, in
// a predicate form.
type Query struct {
	Op  ast.Op
	Src string
	// Classes are the operands' classes, the key of the golden SQL, and
	// Form the predicate form (1: the expression, or `>= 1` of a value).
	Classes string
	Form    int
	Absent  bool
}

// Name is how the matrix names op: its spelling, after "prefix" for a
// prefix operator (- is two operators).
func Name(op ast.Op) string {
	if op.Role() == ast.RolePrefix {
		return "prefix " + op.String()
	}
	return op.String()
}

// Coverage is how many operand combinations of an operator type-check,
// and how many of them have an absent operand.
type Coverage struct{ Combinations, Absent int }

// Queries builds, for every operator of ast.Syntax, the queries of every
// operand combination that checks (check reports whether a source
// type-checks in the strings context). A combination whose expression is
// a value (arithmetic, negation) is tested through predicates that tell
// an absent result from each value. It returns the coverage of each
// operator, and an error for an operator whose role the matrix does not
// know how to write.
func Queries(check func(src string) bool) ([]Query, map[ast.Op]Coverage, error) {
	var out []Query
	cov := map[ast.Op]Coverage{}
	ops := Operands()
	for _, op := range ast.Ops() {
		add := func(expr, classes string, isAbsent bool) {
			forms := []string{expr, "not (" + expr + ")"}
			if !check(expr) {
				// A value: >= 1 (false when absent), and the null test of
				// language.md (true only when absent).
				forms = []string{"(" + expr + ") >= 1", "not ((" + expr + ") >= 0 or (" + expr + ") < 0)"}
			}
			ok := false
			for i, f := range forms {
				if check(f) {
					out = append(out, Query{Op: op, Src: f, Classes: classes, Form: i + 1, Absent: isAbsent})
					ok = true
				}
			}
			if ok {
				c := cov[op]
				c.Combinations++
				if isAbsent {
					c.Absent++
				}
				cov[op] = c
			}
		}
		switch op.Role() {
		case ast.RolePrefix:
			for _, x := range ops {
				add(op.String()+" ("+x.Src+")", x.Class, x.Absent)
			}
		case ast.RoleInfix:
			for _, x := range ops {
				for _, y := range ops {
					add("("+x.Src+") "+op.String()+" ("+y.Src+")", x.Class+" "+y.Class, x.Absent || y.Absent)
				}
			}
		default:
			return nil, nil, fmt.Errorf("operator %s: role %d is neither infix nor prefix; the matrix does not know how to write it", Name(op), op.Role())
		}
	}
	return out, cov, nil
}

// CheckCoverage fails t for an operator no combination of which checks,
// or none with an absent operand.
func CheckCoverage(t testing.TB, cov map[ast.Op]Coverage) {
	t.Helper()
	for _, op := range ast.Ops() {
		switch c := cov[op]; {
		case c.Combinations == 0:
			t.Errorf("operator %s: no operand combination type-checks: the checker has no rule for it (opRules, typecheck/ops.go), or Operands (internal/opmatrix) lacks its operand types", Name(op))
		case c.Absent == 0:
			t.Errorf("operator %s: no combination with an absent operand type-checks", Name(op))
		}
	}
}

// Failures groups the failures of the matrix by operator and what
// failed, so that a missing piece reads as one line per layer.
type Failures struct {
	keys  []string
	byKey map[string]*failure
}

type failure struct {
	n          int
	first, why string
}

// Add records that what failed for q, and why.
func (f *Failures) Add(q Query, what, why string) {
	key := fmt.Sprintf("operator %s: %s", Name(q.Op), what)
	if f.byKey == nil {
		f.byKey = map[string]*failure{}
	}
	if f.byKey[key] == nil {
		f.keys = append(f.keys, key)
		f.byKey[key] = &failure{first: q.Src, why: why}
	}
	f.byKey[key].n++
}

// Report fails t with one line per operator and what failed.
func (f *Failures) Report(t testing.TB) {
	t.Helper()
	for _, k := range f.keys {
		x := f.byKey[k]
		t.Errorf("%s (%d queries), first %s: %s", k, x.n, x.first, x.why)
	}
}

// Reference returns the ids of objs the reference interpreter matches q
// on, in order, or why it cannot evaluate q.
func Reference(q *typecheck.Query, objs []any) (ids []int64, err error) {
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

// Evaluate runs q (mq's checked query) on objs with the evaluator,
// optimised and plain, and records in f where it has no evaluation for
// the operator or disagrees with want, the reference's ids (nil: not
// known).
func Evaluate(f *Failures, mq Query, q *typecheck.Query, objs []any, want []int64) {
	for _, plain := range []bool{false, true} {
		name := "the evaluator"
		var opts []eval.Option
		if plain {
			name, opts = "the evaluator without optimizations", []eval.Option{eval.WithoutOptimizations()}
		}
		prog, err := eval.Compile(q, opts...)
		if err != nil {
			f.Add(mq, name+" has no evaluation for it (eval/ops.go)", err.Error())
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
			f.Add(mq, name+" disagrees with the reference interpreter", fmt.Sprintf("ids %v, want %v", got, want))
		}
	}
}
