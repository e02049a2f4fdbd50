package platform

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	gen "github.com/croql/croql/demo"
	"github.com/croql/croql/server"
)

// TestKeyedStatementsSeekOnStaleStatistics: on a SQLite project whose
// planner statistics were taken when it was small (as a load takes
// them), the writes' statements over a batch of keys look each key up
// in an index; none scans the table. With IN lists SQLite scanned the
// whole table per batch: a translation upload was quadratic in its
// strings.
func TestKeyedStatementsSeekOnStaleStatistics(t *testing.T) {
	ctx := context.Background()
	st, err := server.LoadSQLite(ctx, t.TempDir(), gen.Generate(gen.Options{Strings: 60, Seed: 1}))
	require.NoError(t, err)
	t.Cleanup(func() { _ = st.Close() })
	proj, ok := st.Project(1)
	require.True(t, ok)
	w := newWriter(proj)
	tb, err := w.tables()
	require.NoError(t, err)
	const n = 500
	ch := tb.StrTranslations.Child
	stmts := map[string]string{
		"summaries":      keyedSelectSQL(w.d, tb.Sum.Table(), tb.Sum.Columns(), tb.Sum.OwnerColumn(), n),
		"links":          keyedSelectSQL(w.d, ch.Through, []string{ch.From, ch.To}, ch.From, n),
		"translations":   keyedSelectSQL(w.d, tb.Tr.Table(), []string{tb.Tr.Key(), tb.TrLang}, tb.Tr.Key(), n),
		"delete links":   keyedDeleteSQL(w.d, ch.Through, ch.To, n, ""),
		"delete summary": keyedDeleteSQL(w.d, tb.Sum.Table(), tb.Sum.OwnerColumn(), n, "COALESCE("+w.d.Quote(tb.SumLang)+", '') = ?"),
		"update summary": keyedUpdateSQL(w.d, tb.Sum.Table(), []string{tb.SumLang}, tb.Sum.OwnerColumn(), n),
	}
	require.NoError(t, st.WriteTx(ctx, proj, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, "ANALYZE"); err != nil {
			return err
		}
		for name, q := range stmts {
			plan, err := queryPlan(ctx, tx, q)
			if err != nil {
				return err
			}
			for _, step := range plan {
				// Only the list of keys is scanned ("SCAN k", "SCAN 500
				// CONSTANT ROWS", "SCAN 500-ROW VALUES CLAUSE" by version).
				if rest, ok := strings.CutPrefix(step, "SCAN "); ok {
					assert.True(t, rest == "k" || strings.HasPrefix(rest, "500"), "%s scans: %q\n%s", name, plan, q)
				}
			}
		}
		return nil
	}))
}

// queryPlan is the detail column of SQLite's EXPLAIN QUERY PLAN of q.
func queryPlan(ctx context.Context, tx *sql.Tx, q string) ([]string, error) {
	args := make([]any, strings.Count(q, "?"))
	for i := range args {
		args[i] = int64(i)
	}
	rows, err := tx.QueryContext(ctx, "EXPLAIN QUERY PLAN "+q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			return nil, err
		}
		plan = append(plan, detail)
	}
	return plan, rows.Err()
}
