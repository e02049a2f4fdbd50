package typecheck_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/parser"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/typecheck"
)

// manyUsers is a directory of n users, user00000 ... .
func manyUsers(n int) map[string]int64 {
	m := make(map[string]int64, n)
	for i := range n {
		m[fmt.Sprintf("user%05d", i)] = int64(i + 1)
	}
	return m
}

// loginsQuery is a translations query of about size bytes, an or of
// `user = @user:"..."` over logins made by login(i).
func loginsQuery(size int, login func(i int) string) string {
	var b strings.Builder
	for i := 0; b.Len() < size-64; i++ {
		if i > 0 {
			b.WriteString(" or ")
		}
		fmt.Fprintf(&b, "user = @user:%q", login(i))
	}
	return b.String()
}

func checkWith(t testing.TB, cfg typecheck.Config, src string) *typecheck.Query {
	t.Helper()
	tree, pd := parser.Parse(src)
	require.False(t, pd.HasErrors(), "%v", pd)
	return typecheck.Check(cfg, src, tree)
}

// TestSuggestionsBounded is the H2 reproducer: 10,000 users and a
// 64 KiB query full of unknown logins (each one edit from a known one).
// Checking it allocates about what checking the same query with known
// logins does: suggestions are made for the first few unknown names only,
// against candidates prepared once, and compare only names of about the
// right length. (Before: a full edit distance against every login for
// every mention, past the diagnostics cap: 13 s and 2.4 GB.)
func TestSuggestionsBounded(t *testing.T) {
	cat := schema.New()
	cfg := config(t, cat, "translations", "")
	cfg.Users = manyUsers(10_000)
	cfg = cfg.Prepare()
	unknown := loginsQuery(64<<10, func(i int) string { return fmt.Sprintf("usr%05d", i%10_000) })
	known := loginsQuery(64<<10, func(i int) string { return fmt.Sprintf("user%05d", i%10_000) })
	require.Greater(t, len(unknown), 60<<10)

	q := checkWith(t, cfg, unknown)
	require.True(t, q.Diags.HasErrors())
	withHint := 0
	for _, d := range q.Diags {
		if strings.Contains(d.Hint, "did you mean") {
			withHint++
		}
	}
	assert.Equal(t, typecheck.MaxSuggested, withHint, "only the first few unknown names get suggestions")
	assert.Contains(t, q.Diags[0].Hint, `@user:"user00000"`)
	assert.Equal(t, typecheck.RuleTooMany, q.Diags[len(q.Diags)-1].Rule)

	treeU, _ := parser.Parse(unknown)
	treeK, _ := parser.Parse(known)
	base := testing.AllocsPerRun(3, func() { typecheck.Check(cfg, known, treeK) })
	got := testing.AllocsPerRun(3, func() { typecheck.Check(cfg, unknown, treeU) })
	t.Logf("allocations: %v with known logins, %v with unknown ones", base, got)
	assert.Less(t, got, base+2000, "unknown logins cost a bounded number of allocations more than known ones")
}

// TestPrepareBuildsOnce: a prepared configuration's suggestions are the
// unprepared one's, and come from candidates built once (no per-check
// work proportional to the directory).
func TestPrepareBuildsOnce(t *testing.T) {
	cat := schema.New()
	cfg := config(t, cat, "translations", "")
	cfg.Users = manyUsers(10_000)
	cfg.Languages = []string{"de", "fr", "pt-BR", "zh-CN"}
	src := `user = @user:"usr00042" and language = @language:"pt-br"`
	plain := checkWith(t, cfg, src)
	prepared := cfg.Prepare()
	pq := checkWith(t, prepared, src)
	require.Equal(t, plain.Diags, pq.Diags)
	assert.Contains(t, pq.Diags[0].Hint, `@user:"user00042"`)

	tree, _ := parser.Parse(src)
	perCheck := testing.AllocsPerRun(5, func() { typecheck.Check(prepared, src, tree) })
	assert.Less(t, perCheck, 200.0, "no per-check copy of the 10,000 logins")
}

// TestClosestBounded: suggestions are the nearest names within the
// distance limit, nearest first, whatever the length of the candidates.
func TestClosestBounded(t *testing.T) {
	names := typecheck.NewNames([]string{"alice", "alicia", "bob", "Bobby", "carol", strings.Repeat("x", 5000), "ALICE"})
	assert.Equal(t, []string{"ALICE"}, names.Closest("alce", 3), "one name per key; alicia is 3 edits away")
	assert.Equal(t, []string{"ALICE", "alicia"}, names.Closest("alici", 3))
	assert.Equal(t, []string{"Bobby", "bob"}, names.Closest("bobb", 3), "equally near: in byte order")
	assert.Empty(t, names.Closest("zzzzzzzz", 3))
	assert.Empty(t, names.Closest(strings.Repeat("x", 4999), 3), "names longer than the limit get no suggestion")
	assert.Equal(t, []string{"carol"}, names.Closest("karol", 1))
}

// BenchmarkCheckUnknownLogins checks the H2 reproducer: 10,000 users, a
// 64 KiB query full of unknown logins.
func BenchmarkCheckUnknownLogins(b *testing.B) {
	cfg := config(b, schema.New(), "translations", "")
	cfg.Users = manyUsers(10_000)
	cfg = cfg.Prepare()
	src := loginsQuery(64<<10, func(i int) string { return fmt.Sprintf("usr%05d", i%10_000) })
	tree, _ := parser.Parse(src)
	b.ReportAllocs()
	for b.Loop() {
		typecheck.Check(cfg, src, tree)
	}
}

// TestLanguageCodeCase: with the project's languages known, a code that
// differs from one of them only in case is an error with a fix to the
// project's spelling (the evaluator and SQL compare codes exactly, so
// `@language:"DE"` would check and never match); exact codes check clean.
func TestLanguageCodeCase(t *testing.T) {
	cfg := config(t, schema.New(), "strings", "")
	cfg.Languages = []string{"de", "pt-BR"}
	for src, fix := range map[string]string{
		`count of translations where (language = @language:"DE") > 0`:    `@language:"de"`,
		`count of translations where (language = @language:"pt-br") > 0`: `@language:"pt-BR"`,
	} {
		q := checkWith(t, cfg, src)
		require.Len(t, q.Diags, 1, src)
		d := q.Diags[0]
		assert.Equal(t, typecheck.RuleUnknownLanguage, d.Rule)
		assert.Contains(t, d.Message, "case-sensitive")
		require.Len(t, d.Fixes, 1)
		assert.Equal(t, fix, d.Fixes[0].Text)
		assert.True(t, strings.HasPrefix(src[d.Span.Start:d.Span.End], "@language:"), "the span is the mention")
	}
	for _, src := range []string{`count of translations where (language = @language:"de") > 0`, `count of translations where (language = @language:"pt-BR") > 0`} {
		q := checkWith(t, cfg, src)
		assert.Empty(t, q.Diags, src)
	}
}
