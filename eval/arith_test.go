package eval

import (
	"math"
	"math/big"
	"testing"
)

// TestCheckedIntArithmetic compares addInt, subInt and mulInt with exact
// arithmetic (math/big) on every pair of values near the int64 edges and
// around zero.
func TestCheckedIntArithmetic(t *testing.T) {
	var edges []int64
	for _, base := range []int64{math.MinInt64, math.MinInt64 / 2, -1 << 32, 0, 1 << 32, math.MaxInt64 / 2, math.MaxInt64} {
		for d := int64(-3); d <= 3; d++ {
			if (base == math.MinInt64 && d < 0) || (base == math.MaxInt64 && d > 0) {
				continue
			}
			edges = append(edges, base+d)
		}
	}
	ops := []struct {
		name  string
		fn    func(a, b int64) (int64, bool)
		exact func(z, x, y *big.Int) *big.Int
	}{
		{"+", addInt, (*big.Int).Add},
		{"-", subInt, (*big.Int).Sub},
		{"*", mulInt, (*big.Int).Mul},
	}
	for _, op := range ops {
		for _, a := range edges {
			for _, b := range edges {
				want := op.exact(new(big.Int), big.NewInt(a), big.NewInt(b))
				got, ok := op.fn(a, b)
				if ok != want.IsInt64() {
					t.Fatalf("%d %s %d: in range %v, want %v (exact %s)", a, op.name, b, ok, want.IsInt64(), want)
				}
				if ok && got != want.Int64() {
					t.Fatalf("%d %s %d = %d, want %s", a, op.name, b, got, want)
				}
			}
		}
	}
}
