package parser_test

import (
	"fmt"
	"math"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"

	"github.com/croql/croql/ast"
	"github.com/croql/croql/parser"
)

// exprType is the static type the generator reports, so that properties can
// take an ast.Expr argument.
var exprType = reflect.TypeOf((*ast.Expr)(nil)).Elem()

// genExpr generates random trees of at most maxDepth levels, covering
// every node kind and operator. Values are what the printer can write and
// the parser read back: integers and decimals are not negative (a minus is a
// Unary node), identifiers are words that are not keywords and do not end
// in a null test. The shrinker tries each subtree and simpler leaves.
func genExpr(maxDepth int) gopter.Gen {
	return func(p *gopter.GenParameters) *gopter.GenResult {
		e := randExpr(p.Rng, maxDepth)
		return &gopter.GenResult{Result: e, ResultType: exprType, Shrinker: shrinkExpr}
	}
}

var words = []string{"a", "b", "is", "hidden", "count", "type", "in", "has", "x_1", "_y", "Plain", "languages", "summary", "isHidden", "usageCount", "IS", "Count", "ofx", "android"}

func randIdent(r *rand.Rand) *ast.Ident {
	n := 1 + r.Intn(3)
	ws := make([]string, n)
	for i := range ws {
		ws[i] = words[r.Intn(len(words))]
	}
	return &ast.Ident{Name: strings.Join(ws, " ")}
}

var stringPieces = []string{"", "a", " ", "\"", "\\", "\n", "\t", "\r", "\x00", "\x1f", "\x7f", "é", "👋", "\xff", "'", "and", "\\u0041", "@user:", "(", "≠"}

func randText(r *rand.Rand, pieces []string) string {
	var b strings.Builder
	for n := r.Intn(5); n > 0; n-- {
		b.WriteString(pieces[r.Intn(len(pieces))])
	}
	return b.String()
}

func randLeaf(r *rand.Rand) ast.Expr {
	switch r.Intn(7) {
	case 0, 1:
		return randIdent(r)
	case 2:
		ints := []int64{0, 1, 7, 10, math.MaxInt64, r.Int63()}
		return &ast.Int{Value: ints[r.Intn(len(ints))]}
	case 3:
		floats := []float64{0, 0.5, 10.01, 1e21, 5e-324, math.MaxFloat64, r.Float64() * 1000}
		return &ast.Float{Value: floats[r.Intn(len(floats))]}
	case 4:
		return &ast.String{Value: randText(r, stringPieces)}
	case 5:
		dts := []string{"today", "2024-01-01 00:00:00", "2024-01-01", "2024-01-01T00:00:00Z", "", "not a date", "x\ny"}
		return &ast.Datetime{Text: dts[r.Intn(len(dts))]}
	default:
		kinds := []string{"user", "language"}
		return &ast.Mention{Kind: kinds[r.Intn(2)], Value: randText(r, stringPieces)}
	}
}

var binaryOps = []ast.Op{ast.OpOr, ast.OpXor, ast.OpAnd, ast.OpEq, ast.OpNe, ast.OpLt, ast.OpLe, ast.OpGt, ast.OpGe,
	ast.OpContains, ast.OpAdd, ast.OpSub, ast.OpMul, ast.OpDiv}

func randExpr(r *rand.Rand, depth int) ast.Expr {
	if depth <= 0 || r.Intn(4) == 0 {
		return randLeaf(r)
	}
	sub := func() ast.Expr { return randExpr(r, depth-1) }
	switch r.Intn(8) {
	case 0:
		op := ast.OpNot
		if r.Intn(2) == 0 {
			op = ast.OpNeg
		}
		return &ast.Unary{Op: op, X: sub()}
	case 1, 2:
		return &ast.Binary{Op: binaryOps[r.Intn(len(binaryOps))], X: sub(), Y: sub()}
	case 3:
		return &ast.Between{X: sub(), Lo: sub(), Hi: sub()}
	case 4:
		return &ast.Member{Name: randIdent(r), X: sub()}
	case 5:
		kind := ast.Where
		if r.Intn(2) == 0 {
			kind = ast.With
		}
		return &ast.Filter{Kind: kind, X: sub(), Pred: sub()}
	case 6:
		return &ast.If{Cond: sub(), Then: sub(), Else: sub()}
	default:
		return randLeaf(r)
	}
}

// replaceChild returns a shallow copy of e with child i replaced by c.
func replaceChild(e ast.Expr, i int, c ast.Expr) ast.Expr {
	switch n := e.(type) {
	case *ast.Unary:
		m := *n
		m.X = c
		return &m
	case *ast.Binary:
		m := *n
		if i == 0 {
			m.X = c
		} else {
			m.Y = c
		}
		return &m
	case *ast.Between:
		m := *n
		*[]*ast.Expr{&m.X, &m.Lo, &m.Hi}[i] = c
		return &m
	case *ast.Member:
		m := *n
		m.X = c // child 0 is the name, never replaced
		return &m
	case *ast.Filter:
		m := *n
		*[]*ast.Expr{&m.X, &m.Pred}[i] = c
		return &m
	case *ast.If:
		m := *n
		*[]*ast.Expr{&m.Cond, &m.Then, &m.Else}[i] = c
		return &m
	}
	return e
}

// shrinkCandidates lists smaller trees than e: its subtrees, e with one
// subtree replaced by one of that subtree's children, and simpler leaves.
func shrinkCandidates(e ast.Expr) []ast.Expr {
	var out []ast.Expr
	kids := ast.Children(e)
	for i, k := range kids {
		if _, isName := e.(*ast.Member); isName && i == 0 {
			continue
		}
		out = append(out, k)
	}
	for i, k := range kids {
		if _, isName := e.(*ast.Member); isName && i == 0 {
			continue
		}
		for _, g := range ast.Children(k) {
			if _, ok := k.(*ast.Member); ok && g == ast.Expr(k.(*ast.Member).Name) {
				continue
			}
			out = append(out, replaceChild(e, i, g))
		}
	}
	switch n := e.(type) {
	case *ast.String:
		if n.Value != "" {
			out = append(out, &ast.String{Value: n.Value[:len(n.Value)/2]})
		}
	case *ast.Ident:
		if i := strings.LastIndexByte(n.Name, ' '); i > 0 {
			out = append(out, &ast.Ident{Name: n.Name[:i]})
		}
	case *ast.Int:
		if n.Value != 0 {
			out = append(out, &ast.Int{Value: n.Value / 2})
		}
	}
	return out
}

func shrinkExpr(v any) gopter.Shrink {
	cands := shrinkCandidates(v.(ast.Expr))
	i := 0
	return func() (any, bool) {
		if i >= len(cands) {
			return nil, false
		}
		i++
		return cands[i-1], true
	}
}

// TestPrintParseRoundTrip: for random trees, the printed form parses back
// to the same tree, printing is idempotent, and the grouped form of
// `croql explain` parses back to the same tree too.
func TestPrintParseRoundTrip(t *testing.T) {
	params := gopter.DefaultTestParameters()
	params.MinSuccessfulTests = 2000
	params.Rng = rand.New(rand.NewSource(params.Seed()))
	props := gopter.NewProperties(params)
	props.Property("parse(print(e)) = e", prop.ForAll(func(e ast.Expr) (bool, error) {
		src := ast.Print(e)
		back, diags := parser.Parse(src)
		if diags.HasErrors() {
			return false, diags.Err()
		}
		if !ast.Equal(e, back) {
			return false, fmt.Errorf("tree changed:\n  %s\n  %s\n  source %q", ast.SExpr(e), ast.SExpr(back), src)
		}
		if again := ast.Print(back); again != src {
			return false, fmt.Errorf("fmt not idempotent: %q then %q", src, again)
		}
		g := ast.Grouped(e)
		back, diags = parser.Parse(g)
		if diags.HasErrors() || !ast.Equal(e, back) {
			return false, fmt.Errorf("grouped form %q does not parse back: %v", g, diags)
		}
		return true, nil
	}, genExpr(5)))
	props.TestingRun(t)
}

// TestShrinkerShrinks checks the shrinker itself: every candidate is a
// strictly smaller tree, so shrinking terminates.
func TestShrinkerShrinks(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for range 500 {
		e := randExpr(r, 5)
		n := ast.Count(e)
		for _, c := range shrinkCandidates(e) {
			if ast.Count(c) > n || (ast.Count(c) == n && ast.Equal(c, e)) {
				t.Fatalf("candidate %s is not smaller than %s", ast.SExpr(c), ast.SExpr(e))
			}
		}
	}
}
