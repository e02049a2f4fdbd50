package fuzz_test

import (
	"fmt"
	"maps"
	"math/rand"
	"strings"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/ast"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/store/fuzz"
	"github.com/croql/croql/typecheck"
)

func sample(t *testing.T, gen gopter.Gen, n int, seed int64) []any {
	t.Helper()
	params := gopter.DefaultGenParameters()
	params.Rng = rand.New(rand.NewSource(seed))
	out := make([]any, 0, n)
	for range n {
		r := gen(params)
		v, ok := r.Retrieve()
		require.True(t, ok, "generator gave no value")
		out = append(out, v)
	}
	return out
}

// nodeKind names the construct of a node, operators included.
func nodeKind(e ast.Expr) string {
	switch n := e.(type) {
	case *ast.Unary:
		return "unary " + n.Op.String()
	case *ast.Binary:
		return "binary " + n.Op.String()
	case *ast.Filter:
		return n.Kind.String()
	case *ast.Mention:
		return "@" + n.Kind
	}
	return fmt.Sprintf("%T", e)
}

// TestGeneratorCoverage: over a sample, the generator reaches every field
// of every object of the context (in the enterprise edition), every
// construct and operator, and only well-typed queries.
func TestGeneratorCoverage(t *testing.T) {
	wantKinds := []string{"*ast.Ident", "*ast.Int", "*ast.Float", "*ast.String", "*ast.Datetime", "@user", "@language",
		"unary not", "unary -", "binary and", "binary or", "binary xor", "binary =", "binary !=", "binary <",
		"binary <=", "binary >", "binary >=", "binary contains", "binary +", "binary -", "binary *", "binary /",
		"*ast.Between", "*ast.Member", "where", "with", "*ast.If"}
	for _, tg := range targets() {
		if tg.edition != schema.Enterprise {
			continue
		}
		t.Run(tg.String(), func(t *testing.T) {
			// Deeper trees than the default, to reach the elements of
			// nested collections (votes of translations) sooner.
			g, err := fuzz.NewGenerator(fuzz.Config{Context: tg.context, Edition: tg.edition, MaxDepth: 6})
			require.NoError(t, err)
			kinds := map[string]int{}
			fields := map[*schema.Field]int{}
			want := reachable(g.Context().Root, map[*schema.Object]bool{})
			missing := func() int {
				n := 0
				for f := range want {
					if fields[f] == 0 {
						n++
					}
				}
				for _, k := range wantKinds {
					if kinds[k] == 0 && (k != "where" || g.HasCollections()) {
						n++
					}
				}
				return n
			}
			// Sample until everything was seen, at most 20000 queries.
			for batch := int64(0); batch < 20 && (batch == 0 || missing() > 0); batch++ {
				for _, v := range sample(t, g.Query(), 1000, batch) {
					c := v.(fuzz.Case)
					q, err := g.Check(c.Source())
					require.NoError(t, err)
					ast.Inspect(c.Tree(), func(e ast.Expr) bool { kinds[nodeKind(e)]++; return true })
					for _, f := range q.Names {
						fields[f]++
					}
				}
			}
			for _, k := range wantKinds {
				if k == "where" && !g.HasCollections() {
					continue
				}
				assert.Positive(t, kinds[k], "construct %s never generated", k)
			}
			for f, owner := range want {
				assert.Positive(t, fields[f], "field %q of %s never generated", f.Name, owner)
			}
		})
	}
}

// reachable maps the fields of o and of every object reachable from it
// through records, collections and users to the name of their object.
func reachable(o *schema.Object, seen map[*schema.Object]bool) map[*schema.Field]string {
	out := map[*schema.Field]string{}
	if seen[o] {
		return out
	}
	seen[o] = true
	for _, f := range o.Fields {
		out[f] = o.Name
		if f.Type.Obj != nil {
			maps.Copy(out, reachable(f.Type.Obj, seen))
		}
	}
	return out
}

// TestStandardEditionHasNoEnterpriseFields: in the standard edition the
// generator never names an enterprise-only field (the queries would not
// check).
func TestStandardEditionHasNoEnterpriseFields(t *testing.T) {
	g := generator(t, target{context: "strings", edition: schema.Standard})
	for _, v := range sample(t, g.Query(), 1000, 2) {
		q, err := g.Check(v.(fuzz.Case).Source())
		require.NoError(t, err)
		for _, f := range q.Names {
			require.Equal(t, schema.Standard, f.Edition, "field %s", f.Name)
		}
	}
}

// TestShrinker: every shrink candidate of a generated case is smaller (in
// nodes, or as many nodes with a simpler literal) and still checks clean,
// and shrinking a case whose property is "has no `and`" ends at a small
// tree that still has one.
func TestShrinker(t *testing.T) {
	g := generator(t, target{context: "strings", edition: schema.Enterprise})
	gen := g.Query()
	params := gopter.DefaultGenParameters()
	params.Rng = rand.New(rand.NewSource(3))
	for range 50 {
		r := gen(params)
		v, _ := r.Retrieve()
		c := v.(fuzz.Case)
		n := ast.Count(c.Tree())
		shrink := r.Shrinker(c)
		for i := 0; i < 200; i++ {
			s, ok := shrink()
			if !ok {
				break
			}
			sc := s.(fuzz.Case)
			_, err := g.Check(sc.Source())
			require.NoError(t, err, "candidate of %s", c)
			require.LessOrEqual(t, ast.Count(sc.Tree()), n, "candidate %s of %s is larger", sc, c)
			require.NotEqual(t, c.Source(), sc.Source(), "candidate equals the case")
		}
	}

	hasAnd := func(c fuzz.Case) bool {
		found := false
		ast.Inspect(c.Tree(), func(e ast.Expr) bool {
			if b, ok := e.(*ast.Binary); ok && b.Op == ast.OpAnd {
				found = true
			}
			return true
		})
		return found
	}
	for _, v := range sample(t, gen, 300, 4) {
		c := v.(fuzz.Case)
		if !hasAnd(c) || ast.Count(c.Tree()) < 15 {
			continue
		}
		r := gen(gopter.DefaultGenParameters())
		for shrunk := true; shrunk; {
			shrunk = false
			next := r.Shrinker(c)
			for s, ok := next(); ok; s, ok = next() {
				if hasAnd(s.(fuzz.Case)) {
					c, shrunk = s.(fuzz.Case), true
					break
				}
			}
		}
		// The smallest query with an `and`: two bool leaves.
		assert.LessOrEqual(t, ast.Count(c.Tree()), 3, "shrunk only to %s", c)
		return
	}
	t.Fatal("no large case with `and` in the sample")
}

// TestCheckConfig: the generator's checker configuration is what the
// facade environment of the properties uses.
func TestCheckConfig(t *testing.T) {
	g := generator(t, target{context: "strings", edition: schema.Enterprise})
	cfg := g.CheckConfig()
	assert.Equal(t, schema.Enterprise, cfg.Edition)
	assert.Equal(t, fuzz.Now(), schema.TimeOf(cfg.Now()))
	assert.Len(t, cfg.Users, len(fuzz.Users()))
	q := typecheck.Check(cfg, `@user:"nobody" = 1`, &ast.Binary{Op: ast.OpEq, X: &ast.Mention{Kind: "user", Value: "nobody"}, Y: &ast.Int{Value: 1}})
	require.Len(t, q.Diags, 1)
	assert.Equal(t, typecheck.RuleUnknownUser, q.Diags[0].Rule, "unknown logins are errors under the generator's directory")
}

// TestMayOverflow: float arithmetic that can leave the range where the
// engines agree on generated data is recognised; everything else is not.
// Integer overflow is absent on every engine (compile's TestOverflowRule),
// so it is no risk: the properties run such queries too.
func TestMayOverflow(t *testing.T) {
	big := "1" + strings.Repeat("0", 308) + ".0"  // 1e308
	tiny := "0." + strings.Repeat("0", 199) + "1" // 1e-200
	g := generator(t, target{context: "strings", edition: schema.Enterprise})
	for src, want := range map[string]bool{
		`9223372036854775807 + 2 >= 0`:                                 false,
		`12 * 9223372036854775807 <= max length`:                       false,
		`-(count of comments + 9223372036854775807) < 0`:               false,
		`count of translations * 4611686018427387904 > 0`:              false,
		`(if is hidden then 1 else 9223372036854775807 * 2) > 0`:       false,
		`translations with (count of votes * 9223372036854775807 > 1)`: false,
		`9223372036854775807 > count of comments`:                      false,
		`max length * 1000 * 1000 > 0`:                                 false,
		`-9223372036854775807 < max length`:                            false,
		`9223372036854775807 * 2.5 > 0`:                                false, // float arithmetic
		`count of translations where (count of votes + 1 > 2) > 0`:     false,
		`(if is hidden then 1 else 4611686018427387903) + 1000 > 0`:    false,
		// integer overflow, even where MariaDB propagates an equality
		// into the sum
		`9223372036854775807 = max length and max length + 3 > 0`:   false,
		`count of comments where (9223372036854775807 = 1) + 3 > 0`: false,
		// floats: beyond ±1e300 (then infinity, NaN), or a product or
		// quotient below 1e-300
		big + ` * 10.0 > 0`:                           true,
		big + ` * 10.0 - ` + big + ` * 10.0 != 1.0`:   true,
		tiny + ` * ` + tiny + ` > 0`:                  true,
		`1.0 / ` + tiny + ` / ` + tiny + ` > 0`:       true,
		big + ` > max length`:                         false,
		`max length / 0.0000001 / 0.0000001 > 0`:      false,
		`(2.5 - 2.5) * 123456.789 * 123456.789 = 0.0`: false,
		`count of translations / (2.5 - 2.25) > 1`:    false,
	} {
		q, err := g.Check(src)
		require.NoError(t, err)
		assert.Equal(t, want, fuzz.MayOverflow(q.Root), src)
	}
}
