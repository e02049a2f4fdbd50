package ast

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSyntaxTable(t *testing.T) {
	for op := OpOr; int(op) < len(opRow); op++ {
		assert.NotNil(t, opRow[op], "operator %d has no row in Syntax", op)
	}
	assert.Equal(t, OpOr, Ops()[0])
	for _, op := range Ops() {
		if assert.NotNil(t, opRow[op], "operator %d has a row", op) {
			assert.False(t, opRow[op].Alias)
			assert.Equal(t, opRow[op].Text, op.String())
		}
	}
	assert.Equal(t, "?", OpInvalid.String())
	for _, s := range Syntax {
		if s.Op != OpInvalid {
			assert.Equal(t, s.Prec, s.Op.Precedence(), s.Text)
		}
		if s.Keyword {
			assert.Same(t, Keyword(s.Text), Keyword(s.Text))
			assert.Equal(t, s.Text, Keyword(s.Text).Text)
			assert.NotEmpty(t, s.Doc, s.Text)
		}
	}
	assert.Equal(t, "contains", Keyword("CoNtAiNs").Text)
	assert.Nil(t, Keyword("count"))
	assert.Nil(t, Keyword("an"))
	assert.Equal(t, "<=", Symbol("<= 3").Text)
	assert.Equal(t, "<", Symbol("<> 3").Text)
	assert.Equal(t, "≥", Symbol("≥3").Text)
	assert.Equal(t, OpNe, Infix("≠").Op)
	assert.Equal(t, OpAnd, Infix("AND").Op)
	assert.Equal(t, RoleBetween, Infix("Between").Role)
	assert.Nil(t, Infix("of"))
	assert.Nil(t, Infix("=="))
}

// TestOpClasses checks that an operator's class comes from its row of
// Syntax, whatever its place in the enum.
func TestOpClasses(t *testing.T) {
	class := func(o Op) string {
		switch {
		case o.IsLogical():
			return "logical"
		case o.IsComparison():
			return "comparison"
		case o.IsArithmetic():
			return "arithmetic"
		}
		return ""
	}
	want := map[Op]string{
		OpOr: "logical", OpXor: "logical", OpAnd: "logical", OpNot: "",
		OpEq: "comparison", OpNe: "comparison", OpLt: "comparison", OpLe: "comparison",
		OpGt: "comparison", OpGe: "comparison", OpContains: "comparison",
		OpAdd: "arithmetic", OpSub: "arithmetic", OpMul: "arithmetic", OpDiv: "arithmetic", OpNeg: "",
	}
	// The operators above, each in its class (an operator added later
	// is classed by its row too; the operator matrices cover it).
	for o, w := range want {
		assert.Equal(t, w, class(o), o.String())
	}
	// An Op with no row (one past the table, or OpInvalid) has no class,
	// no spelling and no row, and none of it panics.
	for _, o := range []Op{OpInvalid, Op(len(opRow)), 255} {
		assert.Equal(t, "", class(o))
		assert.Equal(t, "?", o.String())
		assert.Equal(t, PrecCompare, o.Precedence())
		assert.NotContains(t, Ops(), o)
	}
}
