package store

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkSQLiteContains compares SQLite's instr with croql_contains on
// 100,000 short texts (the usual case), per statement: what the linear
// substring test costs where instr is not quadratic.
func BenchmarkSQLiteContains(b *testing.B) {
	db, err := OpenSQLite("")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	if _, err := db.SQL.ExecContext(ctx, `CREATE TABLE t (id INTEGER PRIMARY KEY, text TEXT)`); err != nil {
		b.Fatal(err)
	}
	tx, err := db.SQL.BeginTx(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	for i := range 100000 {
		if _, err := tx.ExecContext(ctx, `INSERT INTO t (text) VALUES (?)`, fmt.Sprintf("Save the file %d before closing the window of the editor", i)); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct{ name, expr string }{
		{"instr", "instr(CAST(text AS BLOB), CAST(? AS BLOB)) > 0"},
		{"croql_contains", "croql_contains(CAST(text AS BLOB), CAST(? AS BLOB))"},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				var n int
				if err := db.SQL.QueryRowContext(ctx, `SELECT count(*) FROM t WHERE `+c.expr, "window of").Scan(&n); err != nil {
					b.Fatal(err)
				}
				if n != 100000 {
					b.Fatal(n)
				}
			}
		})
	}
}
