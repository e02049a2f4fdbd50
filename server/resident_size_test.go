package server

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"github.com/croql/croql"
	demodata "github.com/croql/croql/demo"
	"github.com/croql/croql/eval"
	"github.com/croql/croql/internal/corpus"
	"github.com/croql/croql/schema"
)

// residentStrings is the size of the generated project of the resident
// benchmarks: RESIDENT_STRINGS, 20,000 by default.
func residentStrings() int {
	if v, err := strconv.Atoi(os.Getenv("RESIDENT_STRINGS")); err == nil && v > 0 {
		return v
	}
	return 20_000
}

// residentFile is the NDJSON file of a generated project of n strings.
func residentFile(b *testing.B, n int) []byte {
	var file bytes.Buffer
	if err := demodata.Generate(demodata.Options{Strings: n, Seed: 1}).WriteNDJSON(&file); err != nil {
		b.Fatal(err)
	}
	return file.Bytes()
}

// BenchmarkResidentBytes builds the resident snapshot of a generated
// project from its NDJSON file, as croql serve --data does, and reports
// what it adds to the live heap per string (after a collection) and the
// snapshot's estimate of it.
//
//	go test -run XXX -bench BenchmarkResidentBytes -benchtime 1x ./server/
func BenchmarkResidentBytes(b *testing.B) {
	n := residentStrings()
	file := residentFile(b, n)
	ctx := context.Background()
	for b.Loop() {
		heap0 := liveHeapBytes()
		data, err := readWithin(ctx, bytes.NewReader(file), 0)
		if err != nil {
			b.Fatal(err)
		}
		sn, err := newSnapshot(data, 0)
		if err != nil {
			b.Fatal(err)
		}
		data = nil
		live := liveHeapBytes() - heap0
		b.ReportMetric(float64(live)/float64(n), "live-B/string")
		b.ReportMetric(float64(sn.bytes)/float64(n), "est-B/string")
		runtime.KeepAlive(sn)
	}
}

func liveHeapBytes() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// BenchmarkResidentWalk runs the source-string seed patterns over every
// string of a generated project, read from its file as decoded objects
// (layout=decoded, the schema's types) and in the snapshot's compact
// layout and types (layout=compact): ns per object and pattern.
//
//	go test -run XXX -bench BenchmarkResidentWalk -benchtime 10x ./server/
func BenchmarkResidentWalk(b *testing.B) {
	n := residentStrings()
	file := residentFile(b, n)
	decoded, err := schema.ReadProjectWith(bytes.NewReader(file), schema.ReadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	data, err := readWithin(context.Background(), bytes.NewReader(file), 0)
	if err != nil {
		b.Fatal(err)
	}
	sn, err := newSnapshot(data, 0)
	if err != nil {
		b.Fatal(err)
	}
	std, res := seedStringQueries(b, decoded)
	b.Run("layout=decoded", func(b *testing.B) { walkBench(b, std, decoded.Strings) })
	b.Run("layout=compact", func(b *testing.B) { walkBench(b, res, sn.strings) })
}

func walkBench[T any](b *testing.B, qs []func(*T) bool, objs []T) {
	hits := 0
	for b.Loop() {
		for _, q := range qs {
			for i := range objs {
				if q(&objs[i]) {
					hits++
				}
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(qs)*len(objs)), "ns/object")
	runtime.KeepAlive(hits)
}

// seedStringQueries are the source-string seed patterns compiled for p's
// strings: for the schema's types and for the snapshot's.
func seedStringQueries(b *testing.B, p *schema.Project) (std []func(*schema.SourceString) bool, res []func(*resString) bool) {
	_, file, _, _ := runtime.Caller(0)
	cases, err := corpus.LoadFile(filepath.Join(filepath.Dir(filepath.Dir(file)), "testdata", "corpus", "seed_patterns.txt"))
	if err != nil {
		b.Fatal(err)
	}
	env, err := croql.NewEnv(croql.Strings, croql.WithUserIDs(p.UserIDs()), croql.WithLanguages(p.LanguageCodes()...))
	if err != nil {
		b.Fatal(err)
	}
	cat, err := residentCatalog()
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range cases {
		if c.Has("diag") || c.Get("stage") == "parse" || c.Edition() == "enterprise" || c.Context() != croql.Strings {
			continue
		}
		q, diags := env.Compile(c.Query())
		if diags.HasErrors() {
			b.Fatalf("%s: %v", c.Name, diags)
		}
		t, err := eval.Bind[schema.SourceString](q.Program())
		if err != nil {
			b.Fatal(err)
		}
		std = append(std, t.Func())
		prog, err := residentProgram(env.CheckConfig(), env.Parser(), cat, c.Query())
		if err != nil {
			b.Fatal(err)
		}
		rt, err := eval.Bind[resString](prog)
		if err != nil {
			b.Fatal(err)
		}
		res = append(res, rt.Func())
	}
	return std, res
}
