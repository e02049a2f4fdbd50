package bench

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// dataSize is the number of generated strings the engines run over.
const dataSize = 2000

func TestPatternNamesUnique(t *testing.T) {
	seen := map[string]bool{}
	for _, pt := range Patterns() {
		require.False(t, seen[pt.Name], "duplicate pattern %s", pt.Name)
		seen[pt.Name] = true
	}
	require.GreaterOrEqual(t, len(seen), 8)
}

// TestEnginesAgree runs every pattern in every engine over every string
// and asserts the four answers are the same, and that each pattern selects
// some strings but not all (else agreement would prove little).
func TestEnginesAgree(t *testing.T) {
	p := Data(dataSize)
	engines, err := Engines(p)
	require.NoError(t, err)
	for _, pt := range Patterns() {
		t.Run(pt.Name, func(t *testing.T) {
			ms := make([]Matcher, len(engines))
			for i, e := range engines {
				ms[i], err = e.Build(pt)
				require.NoError(t, err, e.Name)
			}
			matched := 0
			for i := range p.Strings {
				s := &p.Strings[i]
				want, err := ms[len(ms)-1](s) // hand-written Go
				require.NoError(t, err)
				if want {
					matched++
				}
				for j, m := range ms[:len(ms)-1] {
					got, err := m(s)
					require.NoError(t, err, "%s on string %d", engines[j].Name, s.ID)
					require.Equal(t, want, got, "%s disagrees with hand-written Go on string %d", engines[j].Name, s.ID)
				}
			}
			require.Positive(t, matched, "the pattern selects nothing")
			require.Less(t, matched, len(p.Strings), "the pattern selects everything")
		})
	}
}

// BenchmarkPattern measures one evaluation per operation: ns/op is the
// time per object and allocs/op the allocations per object.
func BenchmarkPattern(b *testing.B) {
	p := Data(dataSize)
	engines, err := Engines(p)
	require.NoError(b, err)
	for _, pt := range Patterns() {
		b.Run(pt.Name, func(b *testing.B) {
			for _, e := range engines {
				m, err := e.Build(pt)
				require.NoError(b, err)
				b.Run(e.Name, func(b *testing.B) { Run(b, m, p) })
			}
		})
	}
}
