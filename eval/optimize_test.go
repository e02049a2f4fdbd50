package eval

import (
	"testing"

	"github.com/croql/croql/parser"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/typecheck"
)

// TestWithoutOptimizationsIsPlain: the switch turns off every part of the
// optimising layer, so the plain closure compiler is what the tests that
// run both ways exercise.
func TestWithoutOptimizationsIsPlain(t *testing.T) {
	cat := schema.New()
	ctx, _ := cat.Context(schema.CtxStrings)
	src := `is hidden and max length > 3 and count of comments where (has issue) > 0`
	tree, pd := parser.Parse(src)
	if len(pd) > 0 {
		t.Fatal(pd)
	}
	q := typecheck.Check(typecheck.Config{Catalog: cat, Context: ctx}, src, tree)
	if q.Diags.HasErrors() {
		t.Fatal(q.Diags)
	}
	core, scopes := typecheck.CoreOf(q)
	for _, opt := range []bool{true, false} {
		c := &compiler{scopes: scopes, opt: opt}
		if _, ok := c.simpleTests(core, 0); ok != opt {
			t.Errorf("opt %v: fused tests %v", opt, ok)
		}
		f, _ := ctx.Root.Field("comments")
		cl, err := c.coll(&typecheck.Field{F: f, Obj: ctx.Root})
		if err != nil {
			t.Fatal(err)
		}
		if cl.direct != opt {
			t.Errorf("opt %v: inline slice read %v", opt, cl.direct)
		}
		m, _ := ctx.Root.Field("max length")
		if _, _, ok := c.direct(&typecheck.Field{F: m, Obj: ctx.Root}); ok != opt {
			t.Errorf("opt %v: inline field read %v", opt, ok)
		}
		p, ok, err := c.compareFast(core.(*typecheck.Logic).X.(*typecheck.Logic).Y.(*typecheck.Compare))
		if err != nil || ok != opt || (p != nil) != opt {
			t.Errorf("opt %v: compareFast %v %v", opt, ok, err)
		}
	}
}
