package compile_test

import (
	"context"
	"testing"

	"github.com/croql/croql/demo"
	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/store"
)

// BenchmarkLoad loads a 5,000-string project into each engine (a fresh
// scratch database per iteration). The acceptance figures for 100,000
// strings are in the README (croql load).
func BenchmarkLoad(b *testing.B) {
	p := demo.Generate(demo.Options{Strings: 5000, Seed: 1})
	m := mapping.Default(schema.New())
	for _, e := range engines(b) {
		b.Run(e, func(b *testing.B) {
			ctx := context.Background()
			for b.Loop() {
				db, err := store.Open(ctx, e, dsnOf(e))
				if err != nil {
					b.Fatal(err)
				}
				if err := store.Load(ctx, db, m, p); err != nil {
					b.Fatal(err)
				}
				if err := db.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
