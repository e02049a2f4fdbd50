package croql

import (
	"math"
	"math/big"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/ast"
	"github.com/croql/croql/demo"
	"github.com/croql/croql/internal/corpus"
	"github.com/croql/croql/internal/refeval"
	"github.com/croql/croql/typecheck"
)

// TestClauseValueMatchesReference: Why's walk gives every clause of every
// corpus query that compiles (every node outside a where/with predicate)
// the reference interpreter's value, on objects of the demo project, with
// case-sensitive and case-insensitive contains.
func TestClauseValueMatchesReference(t *testing.T) {
	cases, err := corpus.Load("testdata/corpus")
	require.NoError(t, err)
	p := demo.Default()
	users := p.UserLogins()
	clauses := 0
	for _, fold := range []bool{false, true} {
		for _, c := range cases {
			opts := []Option{WithUserIDs(p.UserIDs()), WithLanguages(p.LanguageCodes()...), WithFoldContains(fold), WithMaxCost(-1)}
			if c.Edition() == "enterprise" {
				opts = append(opts, WithEdition(Enterprise))
			}
			env, err := NewEnv(c.Context(), opts...)
			require.NoError(t, err, c.Where())
			q, diags := env.Compile(c.Query())
			if diags.HasErrors() {
				continue
			}
			objs := p.Objects(env.Context())
			if len(objs) > 12 {
				objs = objs[:12]
			}
			in := &refeval.Interp{Users: users}
			for _, obj := range objs {
				root := reflect.ValueOf(obj).Elem()
				for _, n := range rootClauses(q.checked.Root, nil) {
					got, gotErr := clauseValue(q.checked, n, root, users)
					want, wantErr := in.Value(q.checked, n, obj)
					clauses++
					if wantErr != nil || gotErr != nil {
						assert.Equal(t, wantErr != nil, gotErr != nil, "%s: %q: errors %v, %v", c.Where(), c.Query(), wantErr, gotErr)
						continue
					}
					switch w := want.(type) {
					case refeval.User:
						want = whyUser(w)
					case refeval.Elements:
						want = whyElements(w)
					}
					if f, ok := want.(float64); ok && math.IsNaN(f) {
						g, ok := got.(float64)
						assert.True(t, ok && math.IsNaN(g), "%s: %q: got %#v, want NaN", c.Where(), c.Query(), got)
						continue
					}
					assert.Equal(t, want, got, "%s: %q: clause at %v", c.Where(), c.Query(), n.Span())
				}
			}
		}
	}
	assert.Greater(t, clauses, 10000, "too few clauses compared")
}

// rootClauses lists n and its operands outside every where/with
// predicate, the nodes Why explains.
func rootClauses(n typecheck.Node, out []typecheck.Node) []typecheck.Node {
	out = append(out, n)
	ops := typecheck.Operands(n)
	if _, ok := n.(*typecheck.Filter); ok {
		ops = ops[:1] // the predicate reads the element's scope
	}
	for _, op := range ops {
		out = rootClauses(op, out)
	}
	return out
}

// intArith is exact arithmetic when the result fits in 64 bits, and says
// so when it does not.
func TestIntArith(t *testing.T) {
	edges := []int64{0, 1, -1, 2, -2, 3, 1 << 31, -1 << 31, 1 << 32, -1 << 32, math.MaxInt32, math.MaxInt64, math.MinInt64,
		math.MaxInt64 - 1, math.MinInt64 + 1, math.MaxInt64 / 2, math.MinInt64 / 2, 3037000499, 3037000500, -3037000500}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		edges = append(edges, int64(rng.Uint64())>>rng.IntN(64))
	}
	ops := map[ast.Op]func(z, x, y *big.Int) *big.Int{ast.OpAdd: (*big.Int).Add, ast.OpSub: (*big.Int).Sub, ast.OpMul: (*big.Int).Mul}
	for aop, op := range ops {
		name := aop.String()
		for i, a := range edges {
			for _, b := range edges[max(0, i-40) : i+1] {
				for _, pair := range [][2]int64{{a, b}, {b, a}} {
					exact := op(new(big.Int), big.NewInt(pair[0]), big.NewInt(pair[1]))
					got, fits := intArith(aop, pair[0], pair[1])
					require.Equal(t, exact.IsInt64(), fits, "%d %s %d", pair[0], name, pair[1])
					if fits {
						require.Equal(t, exact.Int64(), got, "%d %s %d", pair[0], name, pair[1])
					}
				}
			}
		}
	}
}

func TestContainsFolded(t *testing.T) {
	for _, c := range []struct {
		s, sub string
		want   bool
	}{
		{"Save file", "SAVE", true},
		{"Save file", "file", true},
		{"Save file", "files", false},
		{"", "", true},
		{"abc", "", true},
		{"", "a", false},
		{"Straße", "STRASSE", false}, // ß folds to no two-letter form under simple folding
		{"ǅemal", "ǆ", true},         // title case folds with lower and upper case
		{"KELVIN", "\u212a", true},   // the Kelvin sign folds with K
		{"a\xffb", "\xffB", true},    // invalid bytes compare as themselves
		{"αβγ", "ΒΓ", true},
		{"αβγ", "ΓΑ", false},
	} {
		assert.Equal(t, c.want, containsFolded(c.s, c.sub), "%q contains %q", c.s, c.sub)
	}
}
