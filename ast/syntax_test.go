package ast

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSyntaxTable(t *testing.T) {
	for op := OpOr; op <= OpNeg; op++ {
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
