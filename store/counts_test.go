package store

import (
	"context"
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
