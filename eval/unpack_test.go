package eval_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/ast"
	"github.com/croql/croql/eval"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/typecheck"
)

// TestMatchEveryRootType: Program.Match, MatchContext and MatchVisits take a
// non-nil pointer to the program's root type, for each context of the
// schema and for a context over a struct of the caller's, and nothing else.
func TestMatchEveryRootType(t *testing.T) {
	type article struct{ Hidden bool }
	cat := schema.New()
	cat.Contexts = append(cat.Contexts, &schema.Context{Name: "articles", Title: "articles",
		Root: schema.NewObject("article", reflect.TypeFor[article](),
			&schema.Field{Name: "is hidden", GoName: "Hidden", Type: schema.TBool})})
	others := []any{&schema.SourceString{}, &schema.Translation{}, &schema.TMSegment{},
		&schema.GlossaryTerm{}, &schema.GlossaryConcept{}, &article{}, article{}, nil, 1}
	for _, tc := range []struct {
		context, src string
		hit, miss    any
	}{
		{schema.CtxStrings, `is hidden`, &schema.SourceString{IsHidden: true}, &schema.SourceString{}},
		{"translations", `user = 11`, &schema.Translation{User: 11}, &schema.Translation{User: 12}},
		{"tm", `count of records > 0`, &schema.TMSegment{Records: []schema.TMRecord{{ID: 1}}}, &schema.TMSegment{}},
		{"glossary", `text = "a"`, &schema.GlossaryTerm{Text: "a"}, &schema.GlossaryTerm{Text: "b"}},
		{"concepts", `id = 3`, &schema.GlossaryConcept{ID: 3}, &schema.GlossaryConcept{ID: 4}},
		{"articles", `is hidden`, &article{Hidden: true}, &article{}},
	} {
		p := compile(t, cat, tc.context, tc.src)
		assert.True(t, p.Match(tc.hit), tc.context)
		assert.False(t, p.Match(tc.miss), tc.context)
		ok, err := p.MatchContext(context.Background(), tc.hit)
		require.NoError(t, err)
		assert.True(t, ok, tc.context)
		ok, _ = p.MatchVisits(tc.hit)
		assert.True(t, ok, tc.context)
		nilPtr := reflect.Zero(reflect.TypeOf(tc.hit)).Interface()
		assert.False(t, p.Match(nilPtr), "%s: a nil pointer", tc.context)
		for _, o := range others {
			if reflect.TypeOf(o) == reflect.TypeOf(tc.hit) {
				continue
			}
			assert.False(t, p.Match(o), "%s: %T", tc.context, o)
			ok, err := p.MatchContext(context.Background(), o)
			assert.False(t, ok, "%s: %T", tc.context, o)
			assert.NoError(t, err)
		}
	}
}

// TestUnknownOperatorIsAnError: a node whose operator the evaluator has no
// code for (an Op added to the language and not to the evaluator) is an
// error naming it, not the last case of a switch.
func TestUnknownOperatorIsAnError(t *testing.T) {
	for _, tc := range []struct {
		src string
		set func(typecheck.Node)
	}{
		{`max length = 1`, func(n typecheck.Node) { n.(*typecheck.Compare).Op = ast.OpContains }},
		{`is hidden and is duplicate`, func(n typecheck.Node) { n.(*typecheck.Logic).Op = ast.OpEq }},
		{`max length + 1 > 2`, func(n typecheck.Node) { n.(*typecheck.Compare).X.(*typecheck.Arith).Op = ast.OpLt }},
	} {
		q := check(t, schema.New(), schema.CtxStrings, tc.src, checkOpts{})
		q.Core = nil // lowered again from Root, as set
		tc.set(q.Root)
		_, err := eval.Compile(q)
		require.Error(t, err, tc.src)
		assert.Contains(t, err.Error(), "has no evaluation in the evaluator", tc.src)
	}
}
