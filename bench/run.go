package bench

import (
	"testing"

	"github.com/croql/croql/schema"
)

// Run is the body of one benchmark: b.N evaluations of m, cycling through
// p's strings, one string per operation. It reports ns/object and
// allocs/object (equal to ns/op and allocs/op) and the share of strings
// matched, which also keeps the work from being optimised away.
func Run(b *testing.B, m Matcher, p *schema.Project) {
	strs := p.Strings
	if len(strs) == 0 {
		b.Skip("no strings")
	}
	b.ReportAllocs()
	matched, j := 0, 0
	b.ResetTimer()
	for range b.N {
		ok, err := m(&strs[j])
		if err != nil {
			b.Fatal(err)
		}
		if ok {
			matched++
		}
		if j++; j == len(strs) {
			j = 0
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/object")
	b.ReportMetric(float64(matched)/float64(b.N), "matched/object")
}
