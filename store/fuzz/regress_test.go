package fuzz_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/croql/croql/schema"
)

// Regressions that cannot live in testdata/corpus (see regressions.txt
// there): they run on the evaluator, the reference interpreter and SQLite
// over the small fixture, with ids worked out by hand.

func smallFixture(t *testing.T) *schema.Project {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "testdata", "fixtures", "small.json"))
	require.NoError(t, err)
	defer f.Close()
	p, err := schema.ReadProject(f)
	require.NoError(t, err)
	return p
}

// TestRegressionContainsByte: contains is a byte substring test in every
// engine, also for a needle that is not UTF-8. Found by FuzzSQL: SQLite's
// instr on TEXT stepped by characters and missed the byte 0x83 inside a
// character (fuzz/testdata/fuzz/FuzzSQL/b291ad58b33c0e0d).
func TestRegressionContainsByte(t *testing.T) {
	p := smallFixture(t)
	l, err := load(context.Background(), []string{"sqlite"}, p)
	require.NoError(t, err)
	defer l.Close()
	for _, c := range []struct {
		tg   target
		src  string
		want []int64
	}{
		// Only glossary term 7, "увійти", holds 0x83 (у is D1 83).
		{target{context: "glossary"}, "text contains \"\x83\"", []int64{7}},
		// 0xA9 ends é (C3 A9); string 1, "Welcome to Café Olé", is the only
		// source text with an é.
		{target{context: "strings"}, "text contains \"\xa9\"", []int64{1}},
		{target{context: "strings", fold: true}, "text contains \"\xa9\"", []int64{}},
	} {
		q, msg := checked(t, c.tg)(c.src)
		require.NotNil(t, q, msg)
		rs, err := l.run(context.Background(), q, true)
		require.NoError(t, err)
		for _, r := range rs {
			require.Equal(t, c.want, r.ids, "%q on %s", c.src, r.engine)
		}
	}
}
