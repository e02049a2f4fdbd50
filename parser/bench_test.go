package parser_test

import (
	"strings"
	"testing"

	"github.com/croql/croql/internal/corpus"
	"github.com/croql/croql/parser"
)

// seedQueries are the queries of the corpus file holding every pattern of
// the seed's section 4.4 table.
func seedQueries(b *testing.B) []string {
	cases, err := corpus.LoadFile("../testdata/corpus/seed_patterns.txt")
	if err != nil {
		b.Fatal(err)
	}
	qs := make([]string, len(cases))
	for i, c := range cases {
		qs[i] = c.Query()
	}
	return qs
}

// BenchmarkParseSeedPatterns parses every seed pattern once per iteration
// (ns/op is for the whole set; see the per-query figure it reports).
func BenchmarkParseSeedPatterns(b *testing.B) {
	qs := seedQueries(b)
	p := parser.New(parser.Limits{})
	b.ReportAllocs()
	for b.Loop() {
		for _, q := range qs {
			if _, d := p.Parse(q); d.HasErrors() {
				b.Fatal(d)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(qs)), "ns/query")
}

// BenchmarkParseEachSeedPattern reports each seed pattern separately.
func BenchmarkParseEachSeedPattern(b *testing.B) {
	cases, err := corpus.LoadFile("../testdata/corpus/seed_patterns.txt")
	if err != nil {
		b.Fatal(err)
	}
	p := parser.New(parser.Limits{})
	for _, c := range cases {
		b.Run(strings.TrimPrefix(c.Name, "seed-"), func(b *testing.B) {
			q := c.Query()
			b.ReportAllocs()
			for b.Loop() {
				p.Parse(q)
			}
		})
	}
}

// BenchmarkParseError measures a query with lexical errors (==, &&) and
// spellings the parse finds (an in-list, a null test).
func BenchmarkParseError(b *testing.B) {
	p := parser.New(parser.Limits{})
	b.ReportAllocs()
	for b.Loop() {
		p.Parse(`text == "a" && id in (1, 2) or max length is null`)
	}
}

// BenchmarkLimitDeepParens: 100,000 nested parentheses (source limit
// raised) must be refused by the depth limit quickly.
func BenchmarkLimitDeepParens(b *testing.B) {
	src := strings.Repeat("(", 100000) + "a" + strings.Repeat(")", 100000)
	p := parser.New(parser.Limits{MaxSource: 1 << 20})
	b.ReportAllocs()
	for b.Loop() {
		if _, d := p.Parse(src); len(d) != 1 || d[0].Rule != "limit-depth" {
			b.Fatal(d)
		}
	}
}

// BenchmarkLimitLongChain: 1 MiB of `a and a and ...` (source limit
// raised) must be refused by the node limit quickly.
func BenchmarkLimitLongChain(b *testing.B) {
	src := strings.Repeat("a and ", (1<<20)/6) + "a"
	p := parser.New(parser.Limits{MaxSource: 2 << 20})
	b.ReportAllocs()
	for b.Loop() {
		if _, d := p.Parse(src); len(d) != 1 || d[0].Rule != "limit-nodes" {
			b.Fatal(d)
		}
	}
}
