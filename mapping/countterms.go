package mapping

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/croql/croql/ast"
)

// countTerm is a term of a count's filter as a key of Table.Counts writes
// it (see CountKey): a bool field of the element (`has qa issues`), maybe
// after `not`; an int field compared with an int constant
// (`approvalsCount > 0`); or the count of a collection of the element
// compared with one (`count of votes > 0`).
type countTerm struct {
	not   bool
	count bool
	name  string
	op    ast.Op // ast.OpInvalid: the bool field name
	k     int64
}

// parseCountTerm parses s, one term of a count's filter, in the
// canonical form of its comparison (see canonical).
func parseCountTerm(s string) countTerm {
	var t countTerm
	s, t.not = strings.CutPrefix(s, "not ")
	t.name = s
	i := strings.LastIndexByte(s, ' ')
	if i < 0 {
		return t
	}
	k, err := strconv.ParseInt(s[i+1:], 10, 64)
	j := strings.LastIndexByte(s[:i], ' ')
	if err != nil || j < 0 {
		return t
	}
	for _, op := range []ast.Op{ast.OpGe, ast.OpLe, ast.OpNe, ast.OpGt, ast.OpLt, ast.OpEq} {
		if op.String() == s[j+1:i] {
			t.op, t.k = op, k
			t.name, t.count = strings.CutPrefix(s[:j], "count of ")
			return t.canonical()
		}
	}
	return t
}

// canonical is t's comparison in one form of those that hold of the same
// ints: `not` folded into the operator, `>= k` as `> k-1`, `<= k` as
// `< k+1`, and for a count (never negative) `!= 0` as `> 0` and `< 1` as
// `= 0`. Only a comparison of ints (non-null ones: Layout refuses a
// nullable field) is rewritten, so each form holds exactly when the
// written one does.
func (t countTerm) canonical() countTerm {
	if t.op == ast.OpInvalid {
		return t
	}
	if t.not {
		t.op, t.not = negated(t.op), false
	}
	switch {
	case t.op == ast.OpGe && t.k > math.MinInt64:
		t.op, t.k = ast.OpGt, t.k-1
	case t.op == ast.OpLe && t.k < math.MaxInt64:
		t.op, t.k = ast.OpLt, t.k+1
	}
	if t.count {
		switch {
		case t.op == ast.OpNe && t.k == 0:
			t.op = ast.OpGt
		case t.op == ast.OpLt && t.k == 1:
			t.op, t.k = ast.OpEq, 0
		}
	}
	return t
}

// negated is the comparison that holds of two ints exactly when op does
// not.
func negated(op ast.Op) ast.Op {
	switch op {
	case ast.OpEq:
		return ast.OpNe
	case ast.OpNe:
		return ast.OpEq
	case ast.OpLt:
		return ast.OpGe
	case ast.OpLe:
		return ast.OpGt
	case ast.OpGt:
		return ast.OpLe
	case ast.OpGe:
		return ast.OpLt
	}
	return op
}

// String writes t as a key of Table.Counts does.
func (t countTerm) String() string {
	s := t.name
	if t.count {
		s = "count of " + s
	}
	if t.op != ast.OpInvalid {
		s += " " + t.op.String() + " " + strconv.FormatInt(t.k, 10)
	}
	if t.not {
		s = "not " + s
	}
	return s
}

// countTerms is the set of the terms of where (CountKey), each in its
// canonical form, sorted: the same for the terms in any order, and for
// comparisons that hold of the same ints (`approvalsCount >= 1`,
// `approvalsCount > 0`).
func countTerms(where string) []string {
	terms := strings.Split(where, " and ")
	for i, t := range terms {
		terms[i] = parseCountTerm(t).String()
	}
	slices.Sort(terms)
	return terms
}

// Holds reports whether `n Op Value` holds (a CountTerm's comparison).
func (t CountTerm) Holds(n int64) bool {
	switch t.Op {
	case ast.OpEq:
		return n == t.Value
	case ast.OpNe:
		return n != t.Value
	case ast.OpLt:
		return n < t.Value
	case ast.OpLe:
		return n <= t.Value
	case ast.OpGt:
		return n > t.Value
	case ast.OpGe:
		return n >= t.Value
	}
	return false
}
