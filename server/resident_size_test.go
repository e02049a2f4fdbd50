package server

import (
	"bytes"
	"context"
	"os"
	"runtime"
	"strconv"
	"testing"

	demodata "github.com/croql/croql/demo"
)

// BenchmarkResidentBytes builds the resident snapshot of a generated
// project from its NDJSON file, as croql serve --data does, and reports
// what it adds to the live heap per string (after a collection).
// RESIDENT_STRINGS sets the size (20,000 by default).
func BenchmarkResidentBytes(b *testing.B) {
	n := 20_000
	if v, err := strconv.Atoi(os.Getenv("RESIDENT_STRINGS")); err == nil && v > 0 {
		n = v
	}
	var file bytes.Buffer
	if err := demodata.Generate(demodata.Options{Strings: n, Seed: 1}).WriteNDJSON(&file); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for b.Loop() {
		heap0 := liveHeapBytes()
		data, err := readWithin(ctx, bytes.NewReader(file.Bytes()), 0)
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
