package serveload_test

import (
	"context"
	"path/filepath"
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
