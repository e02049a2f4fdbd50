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
// (layout=decoded, what the snapshot held before its compact layout) and
// in the snapshot's compact layout (layout=compact): ns per object and
// pattern.
//
//	go test -run XXX -bench BenchmarkResidentWalk -benchtime 10x ./server/
func BenchmarkResidentWalk(b *testing.B) {
	n := residentStrings()
	file := residentFile(b, n)
	decoded, err := schema.ReadProjectWith(bytes.NewReader(file), schema.ReadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	compact, err := readWithin(context.Background(), bytes.NewReader(file), 0)
	if err != nil {
		b.Fatal(err)
	}
	qs := seedStringQueries(b, decoded)
	for _, l := range []struct {
		name string
		p    *schema.Project
	}{{"decoded", decoded}, {"compact", compact}} {
		b.Run("layout="+l.name, func(b *testing.B) {
			hits := 0
			for b.Loop() {
				for _, q := range qs {
					for i := range l.p.Strings {
						if q(&l.p.Strings[i]) {
							hits++
						}
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(qs)*n), "ns/object")
			runtime.KeepAlive(hits)
		})
	}
}

// seedStringQueries are the source-string seed patterns compiled for p.
func seedStringQueries(b *testing.B, p *schema.Project) []func(*schema.SourceString) bool {
	_, file, _, _ := runtime.Caller(0)
	cases, err := corpus.LoadFile(filepath.Join(filepath.Dir(filepath.Dir(file)), "testdata", "corpus", "seed_patterns.txt"))
	if err != nil {
		b.Fatal(err)
	}
	env, err := croql.NewEnv(croql.Strings, croql.WithUserIDs(p.UserIDs()), croql.WithLanguages(p.LanguageCodes()...))
	if err != nil {
		b.Fatal(err)
	}
	var qs []func(*schema.SourceString) bool
	for _, c := range cases {
		if c.Has("diag") || c.Get("stage") == "parse" || c.Edition() == "enterprise" || c.Context() != croql.Strings {
			continue
		}
		q, diags := env.Compile(c.Query())
		if diags.HasErrors() {
			b.Fatalf("%s: %v", c.Name, diags)
		}
		qs = append(qs, func(s *schema.SourceString) bool { ok, _ := q.Match(s); return ok })
	}
	return qs
}
