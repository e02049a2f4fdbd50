package demo_test

import (
	"testing"

	"github.com/croql/croql/demo"
)

func BenchmarkGenerate(b *testing.B) {
	for _, n := range []int{1000, 100000} {
		b.Run("strings="+itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				p := demo.Generate(demo.Options{Strings: n, Seed: 1})
				if len(p.Strings) != n {
					b.Fatal(len(p.Strings))
				}
			}
		})
	}
}
