package serveload_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/croql/croql/bench/serveload"
)

// TestSmallLoad runs the generator briefly: every answer must equal the
// evaluator's.
func TestSmallLoad(t *testing.T) {
	r, err := serveload.Run(context.Background(), serveload.Options{
		Strings: 400, Seed: 3, Engine: "sqlite", Clients: 4, Requests: 120, Duration: time.Minute, Limit: 25,
		CorpusDir: filepath.Join("..", "..", "testdata", "corpus"),
	})
	require.NoError(t, err)
	require.Equal(t, 120, r.Requests)
	require.Equal(t, r.Requests, r.Checked)
	require.Zero(t, r.Mismatches, r.FirstErr)
	require.Zero(t, r.Errors, r.FirstErr)
	require.Greater(t, r.Patterns, 30)
}

// TestCPUSmall measures CPU per request on a small project twice: the
// second run reuses the cached store.
func TestCPUSmall(t *testing.T) {
	cache := t.TempDir()
	o := serveload.CPUOptions{Engine: "sqlite", Strings: 600, Seed: 3, CacheDir: cache,
		CorpusDir: filepath.Join("..", "..", "testdata", "corpus"), ResidentMaxBytes: 1 << 30, Direct: true, Both: true}
	r, err := serveload.CPU(context.Background(), o)
	require.NoError(t, err)
	require.True(t, r.Resident)
	require.Positive(t, r.ResidentBytes)
	require.Positive(t, r.LiveHeap)
	require.Positive(t, r.Ready)
	_, n := r.SumFirst()
	require.Greater(t, n, 30)
	for _, row := range r.Rows {
		require.Empty(t, row.Problem, row.Pattern)
		require.Positive(t, row.First, row.Pattern)
		require.Positive(t, row.Total, row.Pattern)
		require.Positive(t, row.EvalFull, row.Pattern)
		if row.Pattern != "translations-list" { // no query: no SQL of its own
			require.Positive(t, row.SQLCount, row.Pattern)
		}
		require.NotNil(t, row.DB, row.Pattern)
		require.Empty(t, row.DB.Problem, row.Pattern)
		require.Positive(t, row.DB.Total, row.Pattern)
	}
	var out strings.Builder
	serveload.WriteCPU(&out, r)
	require.Contains(t, out.String(), "| seed-type |")
	require.Contains(t, out.String(), "source-string patterns: first pages sum")
	require.Contains(t, out.String(), "live heap")
	require.Contains(t, out.String(), "Database path:")
	// The store and the project's file.
	files, err := os.ReadDir(cache)
	require.NoError(t, err)
	require.Len(t, files, 2)

	o.ResidentMaxBytes, o.Direct, o.Both = 0, false, false
	r2, err := serveload.CPU(context.Background(), o)
	require.NoError(t, err)
	require.False(t, r2.Resident)
	require.Len(t, r2.Rows, len(r.Rows))
	out.Reset()
	serveload.WriteCPU(&out, r2)
	require.Contains(t, out.String(), "Database path, every context:")
	for _, row := range r2.Rows {
		require.Equal(t, row.Problem == "" && row.Total <= 3*row.EvalFull, row.PathTotalOK(), row.Pattern)
	}
	again, err := os.ReadDir(cache)
	require.NoError(t, err)
	require.Equal(t, files[0].Name(), again[0].Name())
	require.Len(t, again, 2)
}
