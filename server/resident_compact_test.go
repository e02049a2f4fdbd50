package server

import (
	"bytes"
	"context"
	"path/filepath"
	"runtime"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/croql/croql"
	demodata "github.com/croql/croql/demo"
	"github.com/croql/croql/internal/corpus"
	"github.com/croql/croql/schema"
)

// ownQueries is how many of compactQueries come before the seed's.
const ownQueries = 8

// compactQueries are queries that read the fields the compact layout
// copies with care (the values kept once, the pointers, the shared
// translations), then the seed patterns.
func compactQueries(t *testing.T) []struct{ ctx, query string } {
	_, file, _, _ := runtime.Caller(0)
	cases, err := corpus.LoadFile(filepath.Join(filepath.Dir(filepath.Dir(file)), "testdata", "corpus", "seed_patterns.txt"))
	require.NoError(t, err)
	qs := []struct{ ctx, query string }{
		{croql.Strings, `max length > 20 or updated > '2024-06-01 00:00:00' or context = "Button label on the payment page"`},
		{croql.Strings, `count of labels where (title = "web") > 0 or count of fields where (value = "checkout") > 0`},
		{croql.Strings, `count of screenshots > 0 and count of comments where (has issue) > 0`},
		{croql.Strings, `count of languages summary where (translation updated > '2024-03-01 00:00:00' and rating > 0) > 0`},
		{croql.Strings, `is duplicate and count of translations where (provider = "deepl" and count of votes where (is down) > 0) > 0`},
		{croql.Translations, `plural form = "one" or provider = "tm" or count of approvals > 0`},
		{croql.TM, `count of records where (text contains "a" and usageCount > 2) > 0`},
		{croql.Glossary, `partOfSpeech = "noun" or status = "preferred" or gender = "feminine" or updatedAt > '2024-06-01 00:00:00'`},
	}
	for _, c := range cases {
		if c.Has("diag") || c.Get("stage") == "parse" || c.Edition() == "enterprise" {
			continue
		}
		qs = append(qs, struct{ ctx, query string }{c.Context(), c.Query()})
	}
	return qs
}

// TestCompactLayoutAnswersAsTheDecoded: every query matches the same
// objects in the snapshot's compact layout as in the decoded project,
// whether it was read from a file (readWithin) or copied from memory
// (compactWithin); no slice of it has spare capacity, and a duplicate
// that shares its master's translations holds the master's.
func TestCompactLayoutAnswersAsTheDecoded(t *testing.T) {
	p := demodata.Generate(demodata.Options{Strings: 3000, Seed: 7})
	var file bytes.Buffer
	require.NoError(t, p.WriteNDJSON(&file))
	decoded, err := schema.ReadProjectWith(bytes.NewReader(file.Bytes()), schema.ReadOptions{})
	require.NoError(t, err)
	ctx := context.Background()
	fromFile, err := readWithin(ctx, bytes.NewReader(file.Bytes()), 0)
	require.NoError(t, err)
	fromMemory, err := compactWithin(ctx, decoded, 0)
	require.NoError(t, err)
	cat := schema.New()
	for i, q := range compactQueries(t) {
		env, err := croql.NewEnv(q.ctx, croql.WithUserIDs(p.UserIDs()), croql.WithLanguages(p.LanguageCodes()...), croql.WithEdition(schema.Enterprise))
		require.NoError(t, err)
		cq, diags := env.Compile(q.query)
		require.False(t, diags.HasErrors(), "%s: %v", q.query, diags)
		c, _ := cat.Context(q.ctx)
		want := matches(t, cq, decoded.Objects(c))
		if i < ownQueries {
			require.NotEmpty(t, want, "%s matches nothing: a weak check", q.query)
		}
		require.Equal(t, want, matches(t, cq, fromFile.Objects(c)), q.query)
		require.Equal(t, want, matches(t, cq, fromMemory.Objects(c)), q.query)
	}
	shared := 0
	for i := range fromFile.Strings {
		s := &fromFile.Strings[i]
		require.Equal(t, len(s.Translations), cap(s.Translations))
		require.Equal(t, len(s.LanguagesSummary), cap(s.LanguagesSummary))
		for _, tr := range s.Translations {
			require.Equal(t, len(tr.Votes), cap(tr.Votes))
		}
		if len(s.Translations) > 0 && s.Translations[0].StringID != s.ID {
			j, ok := slicesIndexString(fromFile.Strings, s.Translations[0].StringID)
			require.True(t, ok)
			require.Equal(t, unsafe.SliceData(fromFile.Strings[j].Translations), unsafe.SliceData(s.Translations))
			shared++
		}
	}
	require.NotZero(t, shared, "the demo has duplicates that share their master's translations")
	require.Equal(t, len(fromFile.Strings), cap(fromFile.Strings))
}

func slicesIndexString(ss []schema.SourceString, id int64) (int, bool) {
	for i := range ss {
		if ss[i].ID == id {
			return i, true
		}
	}
	return 0, false
}

// matches are the ids of the objects q keeps.
func matches(t *testing.T, q *croql.Query, objs []any) []int64 {
	var ids []int64
	for _, o := range objs {
		ok, err := q.Match(o)
		require.NoError(t, err)
		if ok {
			id, _ := schema.ObjectID(o)
			ids = append(ids, id)
		}
	}
	return ids
}
