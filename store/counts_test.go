package store

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/demo"
	"github.com/croql/croql/internal/testdb"
	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
)

// TestRefreshCountsAgreesWithLoad: the counts a load writes with the rows
// (counted from the objects: filters of several flags, of numbers and of
// counts of the elements' own collections among them) are those
// RefreshCounts counts in SQL from the elements, for every row and for
// the rows of some strings and of their translations.
func TestRefreshCountsAgreesWithLoad(t *testing.T) {
	m := mapping.Default(schema.New())
	l, err := m.Layout()
	require.NoError(t, err)
	cols := map[string][]string{}
	for _, ti := range l.Tables {
		for _, c := range ti.Counts {
			cols[ti.Table.Name] = append(cols[ti.Table.Name], c.Name)
		}
	}
	require.Contains(t, cols["strings"], "n_summary_translated_not_approved")
	require.Contains(t, cols["strings"], "n_translations_with_votes")
	require.Contains(t, cols["translations"], "n_votes")
	require.Contains(t, cols["translations"], "n_votes_up") // a derived field's test: mark = 'up'
	require.Contains(t, cols["tm_segments"], "n_records_used")
	p := demo.Generate(demo.Options{Strings: 300, Seed: 3})
	for _, eng := range testdb.Engines(t) {
		db := openRead(t, eng, m, p)
		d := db.Dialect
		sums := func(table string) []int64 {
			q := make([]string, len(cols[table]))
			for i, c := range cols[table] {
				q[i] = "SUM(" + d.Quote(c) + "), SUM(" + d.Quote(c) + " * " + d.Quote("id") + ")"
			}
			out := make([]int64, 2*len(cols[table]))
			ptrs := make([]any, len(out))
			for i := range out {
				ptrs[i] = &out[i]
			}
			require.NoError(t, db.SQL.QueryRow("SELECT "+strings.Join(q, ", ")+" FROM "+d.Quote(table)).Scan(ptrs...))
			return out
		}
		zero := func(table string) {
			sets := make([]string, len(cols[table]))
			for i, c := range cols[table] {
				sets[i] = d.Quote(c) + " = 0"
			}
			_, err := db.SQL.Exec("UPDATE " + d.Quote(table) + " SET " + strings.Join(sets, ", "))
			require.NoError(t, err)
		}
		loaded := map[string][]int64{"strings": sums("strings"), "translations": sums("translations"), "tm_segments": sums("tm_segments")}
		for table, s := range loaded {
			for i, c := range cols[table] {
				assert.NotZero(t, s[2*i], "%s: %s.%s", eng, table, c)
			}
		}
		// Every row of every table.
		zero("strings")
		zero("translations")
		zero("tm_segments")
		require.NoError(t, RefreshCounts(context.Background(), db.SQL, d, m, "", ""))
		for table, s := range loaded {
			assert.Equal(t, s, sums(table), "%s: %s", eng, table)
		}
		// The rows of the strings of some files, as an upload refreshes
		// them, and of their translations; then of the other files.
		zero("strings")
		zero("translations")
		require.NoError(t, RefreshCounts(context.Background(), db.SQL, d, m, "strings", d.Quote("file_id")+" <= "+d.Placeholder(1), int64(2)))
		partial := sums("translations")
		assert.NotZero(t, partial[0], eng)
		assert.NotEqual(t, loaded["translations"], partial, eng)
		require.NoError(t, RefreshCounts(context.Background(), db.SQL, d, m, "strings", d.Quote("file_id")+" IS NULL OR "+d.Quote("file_id")+" > "+d.Placeholder(1), int64(2)))
		for _, table := range []string{"strings", "translations"} {
			s := loaded[table]
			assert.Equal(t, s, sums(table), "%s: %s", eng, table)
		}
		t.Logf("%s: %d counts agree", eng, len(cols["strings"])+len(cols["translations"])+len(cols["tm_segments"]))
	}
}

// byRow is a row of the string_language_counts table.
type byRow struct {
	str                  int64
	lang                 string
	all, voted, approved int64
}

// TestCountsByAgreesWithElements: the table of a string's counts of
// translations by language (mapping.CountsBy) a load fills holds, for
// each string and each language it has translations in, how many it has
// there, and how many of those have votes or approvals, as the strings'
// translations have them (a duplicate's are its master's); RefreshCounts
// rebuilds it for every row and for the strings of some files, and after
// votes and approvals go it counts them no more.
func TestCountsByAgreesWithElements(t *testing.T) {
	m := mapping.Default(schema.New())
	p := demo.Generate(demo.Options{Strings: 300, Seed: 3})
	var want []byRow
	idx := map[[2]any]int{}
	for _, s := range p.Strings {
		for _, tr := range s.Translations {
			k := [2]any{s.ID, tr.Language}
			i, ok := idx[k]
			if !ok {
				i = len(want)
				idx[k] = i
				want = append(want, byRow{str: s.ID, lang: tr.Language})
			}
			want[i].all++
			if len(tr.Votes) > 0 {
				want[i].voted++
			}
			if len(tr.Approvals) > 0 {
				want[i].approved++
			}
		}
	}
	slices.SortFunc(want, func(a, b byRow) int {
		return cmp.Or(cmp.Compare(a.str, b.str), strings.Compare(a.lang, b.lang))
	})
	var voted, approved int64
	for _, r := range want {
		voted, approved = voted+r.voted, approved+r.approved
	}
	require.NotZero(t, voted)
	require.NotZero(t, approved)
	ctx := context.Background()
	for _, eng := range testdb.Engines(t) {
		db := openRead(t, eng, m, p)
		d := db.Dialect
		read := func() []byRow {
			rows, err := db.SQL.Query(`SELECT string_id, language, n_translations, n_with_votes, n_with_approvals FROM string_language_counts ORDER BY string_id, language`)
			require.NoError(t, err)
			defer rows.Close()
			var out []byRow
			for rows.Next() {
				var r byRow
				require.NoError(t, rows.Scan(&r.str, &r.lang, &r.all, &r.voted, &r.approved))
				out = append(out, r)
			}
			require.NoError(t, rows.Err())
			return out
		}
		assert.Equal(t, want, read(), "%s: loaded", eng)
		_, err := db.SQL.Exec("DELETE FROM string_language_counts")
		require.NoError(t, err)
		require.NoError(t, RefreshCounts(ctx, db.SQL, d, m, "", ""))
		assert.Equal(t, want, read(), "%s: every row", eng)
		// The strings of some files, then of the others.
		_, err = db.SQL.Exec("DELETE FROM string_language_counts")
		require.NoError(t, err)
		require.NoError(t, RefreshCounts(ctx, db.SQL, d, m, "strings", d.Quote("file_id")+" <= "+d.Placeholder(1), int64(2)))
		part := read()
		assert.NotEmpty(t, part, eng)
		assert.Less(t, len(part), len(want), eng)
		require.NoError(t, RefreshCounts(ctx, db.SQL, d, m, "strings", d.Quote("file_id")+" IS NULL OR "+d.Quote("file_id")+" > "+d.Placeholder(1), int64(2)))
		assert.Equal(t, want, read(), "%s: by files", eng)
		// Without votes and approvals, a refresh of every string counts
		// none (the translations' own counts refreshed with them).
		for _, table := range []string{"votes", "approvals"} {
			_, err = db.SQL.Exec("DELETE FROM " + d.Quote(table))
			require.NoError(t, err)
		}
		require.NoError(t, RefreshCounts(ctx, db.SQL, d, m, "strings", d.Quote("id")+" > "+d.Placeholder(1), int64(0)))
		got := read()
		require.Len(t, got, len(want), eng)
		for i, r := range got {
			assert.Equal(t, byRow{str: want[i].str, lang: want[i].lang, all: want[i].all}, r, eng)
		}
	}
}

// TestFiledCountsAgreeWithRows: the table of how many strings each
// language's translations are filed under (mapping.Table.FiledCounts) a
// load fills holds, for each language, the number of distinct strings
// its translations are filed under, counted from the translations'
// rows; RefreshFiledCounts counts the languages it is given again (one
// whose translations are filed under one string fewer, one left with
// none), RefreshCounts every language when it refreshes every row.
func TestFiledCountsAgreeWithRows(t *testing.T) {
	m := mapping.Default(schema.New())
	p := demo.Generate(demo.Options{Strings: 200, Seed: 5})
	ctx := context.Background()
	for _, eng := range testdb.Engines(t) {
		db := openRead(t, eng, m, p)
		d := db.Dialect
		// The statements below quote as PostgreSQL and SQLite do.
		q := func(stmt string) string { return strings.ReplaceAll(stmt, `"`, d.Quote("x")[:1]) }
		counts := func(stmt string) map[string]int64 {
			rows, err := db.SQL.Query(q(stmt))
			require.NoError(t, err)
			defer rows.Close()
			out := map[string]int64{}
			for rows.Next() {
				var lang string
				var n int64
				require.NoError(t, rows.Scan(&lang, &n))
				out[lang] = n
			}
			require.NoError(t, rows.Err())
			return out
		}
		kept := func() map[string]int64 {
			return counts(`SELECT "language", "n_filed" FROM "filed_language_counts"`)
		}
		fromRows := func() map[string]int64 {
			return counts(`SELECT "language", COUNT(DISTINCT "filed_string_id") FROM "translations" WHERE "filed_string_id" IS NOT NULL GROUP BY "language"`)
		}
		exec := func(stmt string, args ...any) {
			_, err := db.SQL.Exec(q(stmt), args...)
			require.NoError(t, err)
		}
		want := fromRows()
		require.GreaterOrEqual(t, len(want), 3, eng)
		require.Equal(t, want, kept(), "%s: as loaded", eng)

		// Every translation of uk goes (as a writer removes them: links
		// first), de's of one string are filed under another: the kept
		// counts are stale until refreshed.
		var sid, other int64
		require.NoError(t, db.SQL.QueryRow(q(`SELECT "filed_string_id" FROM "translations" WHERE "language" = 'de' AND "filed_string_id" IS NOT NULL ORDER BY 1 LIMIT 1`)).Scan(&sid))
		require.NoError(t, db.SQL.QueryRow(q(`SELECT MAX("filed_string_id") FROM "translations" WHERE "language" = 'de'`)).Scan(&other))
		exec(`DELETE FROM "string_translations" WHERE "translation_id" IN (SELECT "id" FROM "translations" WHERE "language" = 'uk')`)
		for _, dep := range []string{"votes", "approvals"} {
			exec(`DELETE FROM "` + dep + `" WHERE "translation_id" IN (SELECT "id" FROM "translations" WHERE "language" = 'uk')`)
		}
		exec(`DELETE FROM "translations" WHERE "language" = 'uk'`)
		exec(`UPDATE "string_translations" SET "string_id" = `+d.Placeholder(1)+` WHERE "string_id" = `+d.Placeholder(2)+` AND "translation_id" IN (SELECT "id" FROM "translations" WHERE "language" = 'de')`, other, sid)
		require.Equal(t, want, kept(), "%s: not refreshed yet", eng)
		// The two strings, as a writer refreshes them (their
		// translations refiled), then the languages it wrote.
		require.NoError(t, RefreshCounts(ctx, db.SQL, d, m, "strings", d.Quote("id")+" IN ("+d.Placeholder(1)+", "+d.Placeholder(2)+")", sid, other))
		require.Equal(t, want, kept(), "%s: left to the writer", eng)
		now := fromRows()
		require.Equal(t, want["de"]-1, now["de"], "%s: de lost a string", eng)
		require.NoError(t, RefreshFiledCounts(ctx, db.SQL, d, m, "de"))
		got := kept()
		require.Equal(t, now["de"], got["de"], "%s: de", eng)
		require.Equal(t, want["uk"], got["uk"], "%s: uk was not refreshed", eng)
		require.NoError(t, RefreshFiledCounts(ctx, db.SQL, d, m, "uk", "fr"))
		got = kept()
		require.NotContains(t, got, "uk", "%s: no uk translation is filed under a string", eng)
		require.Equal(t, now, got, eng)
		// Every value.
		exec(`DELETE FROM "filed_language_counts"`)
		require.NoError(t, RefreshCounts(ctx, db.SQL, d, m, "", ""))
		require.Equal(t, now, kept(), eng)
	}
}

// TestTotalsAgreeWithRows: a TM's totals (mapping.Table.Totals) are, as
// loaded, the segments' count and how many have records and used
// records; after the records of some segments go, RefreshCounts of those
// segments counts the totals again.
func TestTotalsAgreeWithRows(t *testing.T) {
	m := mapping.Default(schema.New())
	p := demo.Generate(demo.Options{Strings: 200, Seed: 5})
	ctx := context.Background()
	for _, eng := range testdb.Engines(t) {
		db := openRead(t, eng, m, p)
		d := db.Dialect
		q := func(stmt string) string { return strings.ReplaceAll(stmt, `"`, d.Quote("x")[:1]) }
		row := func(stmt string) [3]int64 {
			var r [3]int64
			require.NoError(t, db.SQL.QueryRow(q(stmt)).Scan(&r[0], &r[1], &r[2]))
			return r
		}
		kept := func() [3]int64 {
			return row(`SELECT "n_rows", "n_records", "n_records_used" FROM "tm_segment_totals"`)
		}
		fromRows := func() [3]int64 {
			return row(`SELECT COUNT(DISTINCT s."id"), COUNT(DISTINCT r."segment_id"), COUNT(DISTINCT CASE WHEN r."usage_count" > 0 THEN r."segment_id" END) FROM "tm_segments" AS s LEFT JOIN "tm_records" AS r ON r."segment_id" = s."id"`)
		}
		want := fromRows()
		require.Greater(t, want[0], want[1], "%s: some segment has no record", eng)
		require.Greater(t, want[1], want[2], "%s: some segment has no used record", eng)
		require.Greater(t, want[2], int64(0), eng)
		require.Equal(t, want, kept(), "%s: as loaded", eng)

		// The used records of the segments with the lowest ids go.
		var lo int64
		require.NoError(t, db.SQL.QueryRow(q(`SELECT MIN("segment_id") FROM "tm_records" WHERE "usage_count" > 0`)).Scan(&lo))
		_, err := db.SQL.Exec(q(`DELETE FROM "tm_records" WHERE "segment_id" <= `+d.Placeholder(1)+` + 50`), lo)
		require.NoError(t, err)
		require.Equal(t, want, kept(), "%s: not refreshed yet", eng)
		require.NoError(t, RefreshCounts(ctx, db.SQL, d, m, "tm_segments", d.Quote("id")+" <= "+d.Placeholder(1)+" + 50", lo))
		now := fromRows()
		require.Less(t, now[1], want[1], "%s: segments lost their records", eng)
		require.Equal(t, now, kept(), "%s: refreshed", eng)
	}
}
