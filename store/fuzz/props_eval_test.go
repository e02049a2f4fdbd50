package fuzz_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	"github.com/croql/croql/ast"
	"github.com/croql/croql/internal/testdb"
	"github.com/croql/croql/store/fuzz"
	"github.com/croql/croql/typecheck"
)

// checked checks a generated query with the facade environment of tg, the
// way a user's query is checked.
func checked(t *testing.T, tg target) func(src string) (*typecheck.Query, string) {
	e := env(t, tg)
	return func(src string) (*typecheck.Query, string) {
		q, diags := e.Check(src)
		if diags.HasErrors() {
			return nil, fmt.Sprintf("generated query does not check: %v", diags.Err())
		}
		return q, ""
	}
}

// propOnData runs a property for every target over generated queries that
// check clean and generated projects; body returns "" when it holds, else
// what went wrong.
func propOnData(t *testing.T, name string, cases int, body func(q *typecheck.Query, d fuzz.Data) string) {
	t.Helper()
	for _, tg := range targets() {
		t.Run(tg.String(), func(t *testing.T) {
			g, chk := generator(t, tg), checked(t, tg)
			check(t, name, cases, func() gopter.Prop {
				return prop.ForAll(func(c fuzz.Case, d fuzz.Data) string {
					q, msg := chk(c.Source())
					if q == nil {
						return msg
					}
					return body(q, d)
				}, g.Query(), fuzz.GenProject())
			})
		})
	}
}

// TestPropEvalTotal: a query that checks clean compiles for the evaluator,
// never panics or errors while evaluating (a panic fails the property
// with its stack), and compiles to SQL for every dialect with one
// placeholder per argument.
func TestPropEvalTotal(t *testing.T) {
	propOnData(t, "checked queries evaluate and compile", 300, func(q *typecheck.Query, d fuzz.Data) string {
		if _, err := evalIDs(q, d.P); err != nil {
			return err.Error()
		}
		if err := compileAll(q); err != nil {
			return err.Error()
		}
		return ""
	})
}

// TestPropEvalRef: the closure evaluator matches exactly the objects the
// reference interpreter matches.
func TestPropEvalRef(t *testing.T) {
	propOnData(t, "eval = refeval", 400, func(q *typecheck.Query, d fuzz.Data) string {
		want, err := refIDs(q, d.P)
		if err != nil {
			return err.Error()
		}
		got, err := evalIDs(q, d.P)
		if err != nil {
			return err.Error()
		}
		return agree([]result{{"refeval", want}, {"eval", got}})
	})
}

// TestPropEvalSQL: the evaluator matches exactly the objects the compiled
// SQL selects on embedded SQLite, over generated data.
func TestPropEvalSQL(t *testing.T) {
	propOnData(t, "eval = sqlite", 200, func(q *typecheck.Query, d fuzz.Data) string {
		ctx := context.Background()
		l, err := load(ctx, []string{"sqlite"}, d.P)
		if err != nil {
			return err.Error()
		}
		defer l.Close()
		rs, err := l.run(ctx, q, false)
		if err != nil {
			return err.Error()
		}
		return agree(rs)
	})
}

// TestPropEvalServers: the evaluator matches exactly the objects the
// compiled SQL selects on PostgreSQL and MariaDB (when CROQL_POSTGRES_DSN
// and CROQL_MYSQL_DSN are set), over a pool of generated projects loaded
// once.
func TestPropEvalServers(t *testing.T) {
	pl := newPool(t)
	if pl == nil {
		t.Skip("no database server configured")
	}
	for _, tg := range targets() {
		t.Run(tg.String(), func(t *testing.T) {
			g, chk := generator(t, tg), checked(t, tg)
			check(t, "eval = "+fmt.Sprint(testdb.Servers(t)), 150, func() gopter.Prop {
				return prop.ForAll(func(c fuzz.Case, i int) string {
					q, msg := chk(c.Source())
					if q == nil {
						return msg
					}
					rs, err := pl[i].run(context.Background(), q, false)
					if err != nil {
						return err.Error()
					}
					return agree(rs)
				}, g.Query(), gen.IntRange(0, len(pl)-1))
			})
		})
	}
}

// identity is a metamorphic identity: two queries built from the parts of
// a case that must match the same objects in every engine.
type identity struct {
	name string
	gen  func(g *fuzz.Generator) gopter.Gen
	// sides builds the two queries from the parts.
	sides func(parts []ast.Expr) (ast.Expr, ast.Expr)
	// only limits the identity to generators that can make its parts.
	only func(g *fuzz.Generator) bool
}

func not(x ast.Expr) ast.Expr               { return &ast.Unary{Op: ast.OpNot, X: x} }
func bin(op ast.Op, x, y ast.Expr) ast.Expr { return &ast.Binary{Op: op, X: x, Y: y} }
func count(x ast.Expr) ast.Expr {
	return &ast.Member{Name: &ast.Ident{Name: "count"}, X: x}
}
func where(x, p ast.Expr) ast.Expr { return &ast.Filter{Kind: ast.Where, X: x, Pred: p} }

func identities() []identity {
	preds := func(g *fuzz.Generator) gopter.Gen { return g.Preds() }
	always := func(*fuzz.Generator) bool { return true }
	return []identity{
		{"not not p = p", preds, func(ps []ast.Expr) (ast.Expr, ast.Expr) {
			return not(not(ps[0])), ps[0]
		}, always},
		{"not (p and q) = not p or not q", preds, func(ps []ast.Expr) (ast.Expr, ast.Expr) {
			return not(bin(ast.OpAnd, ps[0], ps[1])), bin(ast.OpOr, not(ps[0]), not(ps[1]))
		}, always},
		{"not (p or q) = not p and not q", preds, func(ps []ast.Expr) (ast.Expr, ast.Expr) {
			return not(bin(ast.OpOr, ps[0], ps[1])), bin(ast.OpAnd, not(ps[0]), not(ps[1]))
		}, always},
		{"p xor q = (p or q) and not (p and q)", preds, func(ps []ast.Expr) (ast.Expr, ast.Expr) {
			return bin(ast.OpXor, ps[0], ps[1]), bin(ast.OpAnd, bin(ast.OpOr, ps[0], ps[1]), not(bin(ast.OpAnd, ps[0], ps[1])))
		}, always},
		{"x between a and b = x >= a and x <= b", func(g *fuzz.Generator) gopter.Gen { return g.Ordered() },
			func(ps []ast.Expr) (ast.Expr, ast.Expr) {
				return &ast.Between{X: ps[0], Lo: ps[1], Hi: ps[2]}, bin(ast.OpAnd, bin(ast.OpGe, ps[0], ps[1]), bin(ast.OpLe, ps[0], ps[2]))
			}, always},
		{"count of C where (p) > 0 = count of C where (p) >= 1", func(g *fuzz.Generator) gopter.Gen { return g.Filtered() },
			func(ps []ast.Expr) (ast.Expr, ast.Expr) {
				return bin(ast.OpGt, count(where(ps[0], ps[1])), &ast.Int{Value: 0}), bin(ast.OpGe, count(where(ps[0], ps[1])), &ast.Int{Value: 1})
			}, (*fuzz.Generator).HasCollections},
		{"count of C where (p) where (q) counts as count of C where (p and q)", func(g *fuzz.Generator) gopter.Gen { return g.Filtered() },
			func(ps []ast.Expr) (ast.Expr, ast.Expr) {
				// As one query that must hold everywhere: the counts are
				// equal for every object.
				eq := bin(ast.OpEq, count(where(where(ps[0], ps[1]), ps[2])), count(where(ps[0], bin(ast.OpAnd, ps[1], ps[2]))))
				return eq, bin(ast.OpGe, count(ps[0]), &ast.Int{Value: 0})
			}, (*fuzz.Generator).HasCollections},
	}
}

// TestPropMetamorphic: every identity holds in every engine: both sides
// match the same objects with the evaluator, the reference interpreter and
// SQLite over generated data, and with the evaluator, PostgreSQL and
// MariaDB (when configured) over the pool of projects loaded into them.
func TestPropMetamorphic(t *testing.T) {
	pl := newPool(t)
	for _, tg := range targets() {
		t.Run(tg.String(), func(t *testing.T) {
			g, chk := generator(t, tg), checked(t, tg)
			for _, id := range identities() {
				if !id.only(g) {
					continue
				}
				check(t, id.name, 100, func() gopter.Prop {
					return prop.ForAll(func(c fuzz.Case, d fuzz.Data, i int) string {
						left, right := id.sides(c.Parts)
						ql, msg := chk(ast.Print(left))
						if ql == nil {
							return msg
						}
						qr, msg := chk(ast.Print(right))
						if qr == nil {
							return msg
						}
						ctx := context.Background()
						l, err := load(ctx, []string{"sqlite"}, d.P)
						if err != nil {
							return err.Error()
						}
						defer l.Close()
						if msg := holds(ctx, l, ql, qr); msg != "" {
							return msg
						}
						if pl != nil {
							return holds(ctx, pl[i], ql, qr)
						}
						return ""
					}, id.gen(g), fuzz.GenProject(), gen.IntRange(0, max(len(pl)-1, 0)))
				})
			}
		})
	}
}

// holds runs both sides of an identity on every engine of l and reports
// any engine, or side, that differs.
func holds(ctx context.Context, l *loaded, left, right *typecheck.Query) string {
	rl, err := l.run(ctx, left, true)
	if err != nil {
		return err.Error()
	}
	rr, err := l.run(ctx, right, true)
	if err != nil {
		return err.Error()
	}
	for i := range rl {
		rl[i].engine = "left/" + rl[i].engine
		rr[i].engine = "right/" + rr[i].engine
	}
	if msg := agree(append(rl, rr...)); msg != "" {
		return fmt.Sprintf("%s\n  left:  %s\n  right: %s", msg, left.Source, right.Source)
	}
	return ""
}
