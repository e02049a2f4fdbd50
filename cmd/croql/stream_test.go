package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/demo"
)

// TestQueryEnginesAgreeOnBadData: the M5 reproducers fail the same way,
// with the line, whether the query runs in memory (streamed) or on SQLite
// (read whole, then loaded); and once fixed they give the same answer.
func TestQueryEnginesAgreeOnBadData(t *testing.T) {
	dir := t.TempDir()
	const head = `{"kind":"project","name":"p","sourceLanguageId":"en"}` + "\n" + `{"kind":"user","id":1,"login":"alice"}` + "\n"
	s := func(id, text string) string {
		return `{"kind":"string","id":` + id + `,"type":"plain","text":"` + text + `","added":"2024-01-01 00:00:00"}` + "\n"
	}
	for name, tc := range map[string]struct{ src, want string }{
		"duplicate string": {head + s("1", "a") + s("1", "a") + s("3", "c"), "line 4: string 1: the id is taken"},
		"duplicate login":  {head + `{"kind":"user","id":2,"login":"alice"}` + "\n" + s("1", "a"), `line 3: user 2: login "alice" is taken`},
	} {
		t.Run(name, func(t *testing.T) {
			f := filepath.Join(dir, name+".ndjson")
			require.NoError(t, os.WriteFile(f, []byte(tc.src), 0o600))
			for _, engine := range []string{"memory", "sqlite"} {
				code, out, stderr := runQuery(t, "", "--data", f, "--engine", engine, "--ids", `text contains "a"`)
				assert.Equal(t, 1, code, engine)
				assert.Empty(t, out, engine)
				assert.Contains(t, stderr, tc.want, engine)
			}
		})
	}
	good := filepath.Join(dir, "good.ndjson")
	require.NoError(t, os.WriteFile(good, []byte(head+s("1", "a")+s("2", "b")+s("3", "ab")), 0o600))
	var answers []string
	for _, engine := range []string{"memory", "sqlite"} {
		code, out, stderr := runQuery(t, "", "--data", good, "--engine", engine, "--ids", `text contains "a"`)
		require.Equal(t, 0, code, stderr)
		answers = append(answers, idLines(out))
	}
	assert.Equal(t, []string{"1 3", "1 3"}, answers)
}

// TestQuerySkipBad: --skip-bad reports the skipped lines and answers over
// the rest.
func TestQuerySkipBad(t *testing.T) {
	f := filepath.Join(t.TempDir(), "p.ndjson")
	src := `{"kind":"string","id":1,"type":"plain","text":"a","added":"2024-01-01"}` + "\n" +
		`{"kind":"string","id":2,"type":"poem","text":"a","added":"2024-01-01"}` + "\n" +
		`{"kind":"string","id":3,"type":"plain","text":"a","added":"2024-01-01"}` + "\n"
	require.NoError(t, os.WriteFile(f, []byte(src), 0o600))
	code, out, stderr := runQuery(t, "", "--data", f, "--ids", `text = "a"`)
	assert.Equal(t, 1, code)
	assert.Empty(t, out)
	assert.Contains(t, stderr, `line 2: string 2: type "poem"`)
	code, out, stderr = runQuery(t, "", "--data", f, "--ids", "--skip-bad", `text = "a"`)
	assert.Equal(t, 0, code, stderr)
	assert.Equal(t, "1 3", idLines(out))
	assert.Contains(t, stderr, "skipped line 2: string 2: type \"poem\"")
}

// TestQueryStreamMatchesInMemory: the streamed query prints what the
// in-memory one prints over the same project, objects and ids, in every
// context.
func TestQueryStreamMatchesInMemory(t *testing.T) {
	p := demo.Generate(demo.Options{Strings: 400, Seed: 9})
	dir := t.TempDir()
	var nd, js bytes.Buffer
	require.NoError(t, p.WriteNDJSON(&nd))
	require.NoError(t, p.WriteJSON(&js))
	ndf, jsf := filepath.Join(dir, "p.ndjson"), filepath.Join(dir, "p.json")
	require.NoError(t, os.WriteFile(ndf, nd.Bytes(), 0o600))
	require.NoError(t, os.WriteFile(jsf, js.Bytes(), 0o600))
	for _, tc := range []struct{ ctx, q string }{
		{"strings", "count of translations where (count of votes > 0) > 0"},
		{"translations", `text contains "e"`},
		{"tm", "count of records > 1"},
		{"glossary", `text contains "a"`},
		{"concepts", "translatable"},
	} {
		_, fromJSON, stderr := runQuery(t, "", "--data", jsf, "--context", tc.ctx, tc.q)
		require.Empty(t, stderr)
		_, fromND, _ := runQuery(t, "", "--data", ndf, "--context", tc.ctx, tc.q)
		_, viaSQL, _ := runQuery(t, "", "--data", ndf, "--context", tc.ctx, "--engine", "sqlite", "--ids", tc.q)
		_, ids, _ := runQuery(t, "", "--data", ndf, "--context", tc.ctx, "--ids", tc.q)
		require.NotEmpty(t, fromND, tc.ctx)
		assert.Equal(t, fromJSON, fromND, tc.ctx)
		assert.Equal(t, bytes.Count([]byte(fromND), []byte("\n")), len(bytes.Fields([]byte(ids))), tc.ctx)
		assert.ElementsMatch(t, bytes.Fields([]byte(ids)), bytes.Fields([]byte(viaSQL)), tc.ctx)
	}
}
