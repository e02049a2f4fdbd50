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
// (counted from the objects, filters of several flags among them) are
// those RefreshCounts counts in SQL from the elements.
func TestRefreshCountsAgreesWithLoad(t *testing.T) {
	m := mapping.Default(schema.New())
	l, err := m.Layout()
	require.NoError(t, err)
	var cols []string
	for _, ti := range l.Tables {
		if ti.Table.Name == "strings" {
			for _, c := range ti.Counts {
				cols = append(cols, c.Name)
			}
		}
	}
	require.Contains(t, cols, "n_summary_translated_not_approved")
	p := demo.Generate(demo.Options{Strings: 300, Seed: 3})
	for _, eng := range testdb.Engines(t) {
		db := openRead(t, eng, m, p)
		q := make([]string, len(cols))
		for i, c := range cols {
			q[i] = "SUM(" + db.Dialect.Quote(c) + "), SUM(" + db.Dialect.Quote(c) + " * " + db.Dialect.Quote("id") + ")"
		}
		sums := func() []any {
			out := make([]any, 2*len(cols))
			ptrs := make([]any, len(out))
			for i := range out {
				var n int64
				ptrs[i], out[i] = &n, &n
			}
			require.NoError(t, db.SQL.QueryRow("SELECT "+strings.Join(q, ", ")+" FROM "+db.Dialect.Quote("strings")).Scan(ptrs...))
			for i := range out {
				out[i] = *(out[i].(*int64))
			}
			return out
		}
		loaded := sums()
		_, err := db.SQL.Exec("UPDATE " + db.Dialect.Quote("strings") + " SET " + db.Dialect.Quote("n_summary_translated_not_approved") + " = 0, " + db.Dialect.Quote("n_summary_translated_not_shared") + " = 0")
		require.NoError(t, err)
		require.NoError(t, RefreshCounts(context.Background(), db.SQL, db.Dialect, m, "strings", ""))
		assert.Equal(t, loaded, sums(), eng)
		for i, c := range cols {
			if strings.HasSuffix(c, "_not_approved") || strings.HasSuffix(c, "_not_shared") {
				assert.NotZero(t, loaded[2*i], "%s: %s", eng, c)
			}
		}
		t.Logf("%s: %d counts agree", eng, len(cols))
	}
}
