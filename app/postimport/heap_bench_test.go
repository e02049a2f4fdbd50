package postimport

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// reproducerNDJSON writes (once per process) the audit's H3 reproducer: about
// 100 MiB of NDJSON strings, into a temporary file.
var reproducer = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "postimport-h3-")
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "strings.ndjson")
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	w := bufio.NewWriter(f)
	var n int64
	for i := 0; n < 100<<20; i++ {
		k, err := fmt.Fprintf(w, `{"uniqId":"9cdfb439c7876e703e307864c9167a15::%d","identifier":"screen.section.key_%d","context":"Shown on the settings screen","maxLength":null,"isHidden":false,"hasPlurals":false,"labels":["ui","settings"],"text":"The quick brown fox jumps over the lazy dog, number %d","translations":{"uk":{"text":"Швидкий бурий лис перестрибує через лінивого пса, номер %d","status":"translated"}}}`+"\n", i, i, i, i)
		if err != nil {
			return "", err
		}
		n += int64(k)
	}
	if err := w.Flush(); err != nil {
		return "", err
	}
	return path, f.Close()
})

// peakHeap samples the bytes of heap objects (live and not yet swept,
// runtime/metrics "/memory/classes/heap/objects:bytes", read without
// stopping the world) every millisecond until stop is called, and returns
// the peak.
func peakHeap() (stop func() uint64) {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak atomic.Uint64
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(sample)
			if v := sample[0].Value.Uint64(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 {
		close(done)
		<-finished
		return peak.Load()
	}
}

// BenchmarkStringsURLPeakHeap is the H3 reproducer: one job whose
// stringsUrl serves ~100 MiB of NDJSON to an identity processor. It reports
// the peak heap (HeapAlloc sampled every 2 ms) of one job in peak-heap-B,
// with the bounds raised so the whole stream is decoded ("raised"), with
// the default bounds ("default", the stream is refused at the cap), and with
// the bounds raised and the default store ("raised-filestore").
func BenchmarkStringsURLPeakHeap(b *testing.B) {
	path, err := reproducer()
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.ServeFile(w, r, path)
	}))
	defer srv.Close()
	body := []byte(`{"jobType":"file-post-import","sourceLanguage":{"id":"en","pluralCategoryNames":["one","other"]},"targetLanguages":[{"id":"uk","pluralCategoryNames":["one","few","many","other"]}],"stringsUrl":"` + srv.URL + `/strings.ndjson"}`)
	discard := StoreFunc(func(_ context.Context, nd []byte) (string, error) { return "https://app.example/r/1", nil })
	for _, bc := range []struct {
		name string
		cfg  Config
	}{
		{"raised", Config{MaxStringsBytes: 128 << 20, MaxFileBytes: 128 << 20, Store: discard}},
		{"default", Config{Store: discard}},
		// The handler's own store (temporary files, written as a stream).
		{"raised-filestore", Config{MaxStringsBytes: 128 << 20, MaxFileBytes: 128 << 20}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			cfg := bc.cfg
			cfg.HTTPClient = &http.Client{}
			cfg.Logger = quietLogger()
			h, err := NewHandler(identity, cfg)
			if err != nil {
				b.Fatal(err)
			}
			defer h.Close()
			var peak uint64
			for b.Loop() {
				stop := peakHeap()
				w := httptest.NewRecorder()
				h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body)))
				peak = max(peak, stop())
				if bc.name != "default" && (w.Code != http.StatusOK || !bytes.Contains(w.Body.Bytes(), []byte("stringsUrl"))) {
					b.Fatal(w.Code, w.Body.String())
				}
			}
			b.ReportMetric(float64(peak), "peak-heap-B")
		})
	}
}
