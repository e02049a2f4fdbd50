package compile

import (
	"context"
	"database/sql"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// copier returns a function that copies rows into a table of conn, a
// connection of pgx's database/sql driver, with COPY FROM STDIN (binary).
// It runs in the transaction the connection has open.
func copier(conn *sql.Conn) func(ctx context.Context, table string, cols []string, rows [][]any) error {
	return func(ctx context.Context, table string, cols []string, rows [][]any) error {
		return conn.Raw(func(dc any) error {
			c, ok := dc.(*stdlib.Conn)
			if !ok {
				return errors.New("COPY needs pgx's database/sql driver (github.com/jackc/pgx/v5/stdlib)")
			}
			_, err := c.Conn().CopyFrom(ctx, pgx.Identifier{table}, cols, pgx.CopyFromRows(rows))
			return err
		})
	}
}
