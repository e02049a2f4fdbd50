package fuzz

import (
	"math"

	"github.com/croql/croql/ast"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/typecheck"
)

// fieldBound bounds the magnitude of every integer the generated data
// holds (counts, ids, lengths, ratings, usage counts): far above what
// GenProject makes, far below the 64-bit range.
const fieldBound = 1 << 20

// MayOverflow reports whether float arithmetic in n may leave the range
// where the engines agree, when the numbers it reads (fields, members,
// counts) stay below 2^20 in magnitude, as in all data GenProject makes,
// or below the largest number of the query: beyond ±1e300 (on the way to
// infinity, and to NaN from there) or, for * and /, below 1e-300 when not
// zero.
//
// Integer arithmetic is never a risk: the language's overflow rule is that
// integer +, - and * (and unary -) whose exact result leaves the int64
// range is absent, like a division by zero, and every engine follows it
// (the evaluator checks each operation, the SQL guards the range; see
// docs/language.md "Numbers" and compile's TestOverflowRule). Float
// overflow is still open: the evaluator computes with infinities and NaN,
// SQLite turns NaN into NULL, PostgreSQL fails the query, so the
// properties and fuzz targets leave such queries out;
// testdata/corpus/regressions.txt records the finding.
func MayOverflow(n typecheck.Node) bool {
	// A database may evaluate arithmetic on a value no row holds: MariaDB
	// propagates `9223372036854775807 = rating` into `3 + rating` and
	// fails on the sum. So a field may be as large as any number of the
	// query.
	a := analysis{field: fieldBound}
	var walk func(n typecheck.Node)
	walk = func(n typecheck.Node) {
		if k, ok := n.(*typecheck.Const); ok && k.T.IsNumeric() {
			a.field = math.Max(a.field, math.Max(math.Abs(float64(k.I)), math.Abs(k.F)))
		}
		for _, c := range typecheck.Operands(n) {
			walk(c)
		}
	}
	walk(n)
	return a.bound(n).risk
}

// analysis holds what bounds the fields: the largest magnitude data or
// the query's constants give.
type analysis struct {
	field float64
}

// magnitude bounds the absolute value of a numeric node: hi above, lo
// below when the value is not zero; risk tells that some arithmetic under
// the node may overflow.
type magnitude struct {
	hi, lo float64
	risk   bool
}

// Float arithmetic is safe while magnitudes stay within these.
const (
	floatHi = 1e300
	floatLo = 1e-300
)

func (a analysis) bound(n typecheck.Node) magnitude {
	switch n := n.(type) {
	case *typecheck.Const:
		switch n.T.Kind {
		case schema.Int:
			v := math.Abs(float64(n.I))
			return magnitude{hi: v, lo: math.Max(v, 1)}
		case schema.Float:
			v := math.Abs(n.F)
			if v == 0 {
				return magnitude{hi: 0, lo: math.MaxFloat64} // never non-zero
			}
			return magnitude{hi: v, lo: v}
		}
		return magnitude{}
	case *typecheck.Arith:
		x, y := a.bound(n.X), a.bound(n.Y)
		if x.risk || y.risk {
			return magnitude{risk: true}
		}
		var m magnitude
		switch n.Op {
		case ast.OpAdd, ast.OpSub:
			// A difference of floats that is not zero is at least an ulp
			// of the smaller operand.
			m = magnitude{hi: x.hi + y.hi, lo: math.Min(x.lo, y.lo) * 0x1p-52}
		case ast.OpMul:
			m = magnitude{hi: x.hi * y.hi, lo: x.lo * y.lo}
		default: // ast.OpDiv
			m = magnitude{hi: x.hi / y.lo, lo: x.lo / math.Max(y.hi, math.SmallestNonzeroFloat64)}
		}
		if n.T.Kind == schema.Int {
			// Out of range is absent everywhere: no risk, and a present
			// result is within int64.
			m.lo = 1
			m.hi = math.Min(m.hi, math.MaxInt64)
			return m
		}
		m.risk = m.hi > floatHi || (n.Op == ast.OpMul || n.Op == ast.OpDiv) && m.lo < floatLo
		return m
	case *typecheck.Neg:
		return a.bound(n.X)
	case *typecheck.ToFloat:
		return a.bound(n.X)
	case *typecheck.If:
		c, t, e := a.bound(n.Cond), a.bound(n.Then), a.bound(n.Else)
		return magnitude{hi: math.Max(t.hi, e.hi), lo: math.Min(t.lo, e.lo), risk: c.risk || t.risk || e.risk}
	}
	// Fields, members and counts are integers of the data; everything
	// else is not a number and only passes on the risk of its operands.
	m := magnitude{hi: a.field, lo: 1}
	for _, k := range typecheck.Operands(n) {
		if a.bound(k).risk {
			m.risk = true
		}
	}
	return m
}
