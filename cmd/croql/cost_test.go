package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/schema"
)

func nestedTranslations(depth int) string {
	q := `text contains "e"`
	for range depth {
		q = "count of translations where (" + q + ") > 0"
	}
	return q
}

// TestQueryMaxCost: `croql query` refuses the 8-deep query by
// default (exit 1, a too-costly diagnostic) instead of running for
// seconds; --max-cost raises the budget, and a negative one removes it.
func TestQueryMaxCost(t *testing.T) {
	code, out, stderr := runQuery(t, "", "--ids", nestedTranslations(8))
	assert.Equal(t, 1, code)
	assert.Empty(t, out)
	assert.Contains(t, stderr, "croqlInvalidLogic/too-costly")
	assert.Contains(t, stderr, "over the budget of 1M")

	code, _, stderr = runQuery(t, "", "--ids", nestedTranslations(5))
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "too-costly")
	for _, budget := range []string{"1e9", "-1"} {
		code, out, stderr = runQuery(t, "", "--ids", "--max-cost", budget, nestedTranslations(5))
		require.Equal(t, 0, code, stderr)
		assert.NotEqual(t, "none", idLines(out))
	}
}

// TestInterruptStopsCostlyQuery builds croql, runs the 8-deep
// query with the budget removed on a string with 20 translations (2.6e10
// visits), in memory both ways (the demo path and the streaming --data
// path), sends SIGINT after a moment, and checks that croql exits with
// status 1 instead of running on. The bound is generous on purpose: the
// test asserts that it stops, not how fast.
func TestInterruptStopsCostlyQuery(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "croql")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "%s", out)

	s := schema.SourceString{ID: 1, Type: "plain", Text: "x", Identifier: "k"}
	for i := range 20 {
		s.Translations = append(s.Translations, schema.Translation{ID: int64(100 + i), StringID: 1, Language: "de", Text: "y", PluralForm: "none"})
	}
	p := &schema.Project{Languages: []schema.LanguageInfo{{ID: "de"}}, Strings: []schema.SourceString{s}}
	data := filepath.Join(t.TempDir(), "costly.json")
	b, err := json.Marshal(p)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(data, b, 0o600))

	src := `text = "no translation has this text"` // no loop stops early
	for range 8 {
		src = "count of translations where (" + src + ") > 0"
	}
	for name, args := range map[string][]string{"demo": nil, "stream": {"--data", data}} {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, append(append([]string{"query", "--ids", "--max-cost", "-1"}, args...), src)...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			require.NoError(t, cmd.Start())
			time.Sleep(500 * time.Millisecond)
			require.NoError(t, cmd.Process.Signal(os.Interrupt))
			err := cmd.Wait()
			require.NoError(t, ctx.Err(), "croql did not stop on SIGINT")
			var ee *exec.ExitError
			require.ErrorAs(t, err, &ee, "the query was stopped, not finished: %s", stderr.String())
			assert.Equal(t, 1, ee.ExitCode(), stderr.String())
			assert.Contains(t, stderr.String(), "context canceled")
		})
	}
}
