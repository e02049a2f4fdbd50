package schema_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/croql/croql/demo"
	"github.com/croql/croql/schema"
)

// BenchmarkReadProject reads a 10,000-string project in both forms.
func BenchmarkReadProject(b *testing.B) {
	p := demo.Generate(demo.Options{Strings: 10000, Seed: 1})
	for name, write := range map[string]func(io.Writer) error{"json": p.WriteJSON, "ndjson": p.WriteNDJSON} {
		var buf bytes.Buffer
		if err := write(&buf); err != nil {
			b.Fatal(err)
		}
		data := buf.Bytes()
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				q, err := schema.ReadProject(bytes.NewReader(data))
				if err != nil || len(q.Strings) != len(p.Strings) {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkWriteProject writes a 10,000-string project in both forms.
func BenchmarkWriteProject(b *testing.B) {
	p := demo.Generate(demo.Options{Strings: 10000, Seed: 1})
	for name, write := range map[string]func(io.Writer) error{"json": p.WriteJSON, "ndjson": p.WriteNDJSON} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := write(io.Discard); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
