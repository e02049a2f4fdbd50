package engine

import (
	"context"
	"database/sql"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/croql/croql/compile"
	"github.com/croql/croql/schema"
)

// Copy copies rows into a table of conn, a connection of pgx's
// database/sql driver, with COPY FROM STDIN (binary). It runs in the
// transaction the connection has open. It is the compile.CopyFunc that
// Load and NewLoader pass for PostgreSQL.
func Copy(ctx context.Context, conn *sql.Conn, table string, cols []string, rows [][]any) error {
	return conn.Raw(func(dc any) error {
		c, ok := dc.(*stdlib.Conn)
		if !ok {
			return errors.New("COPY needs pgx's database/sql driver (github.com/jackc/pgx/v5/stdlib)")
		}
		_, err := c.Conn().CopyFrom(ctx, pgx.Identifier{table}, cols, pgx.CopyFromRows(rows))
		return err
	})
}

// LoadOptions are the compile.LoadOption that feed db the fastest way it
// takes rows: COPY for PostgreSQL, none (multi-row INSERTs) otherwise.
func (db *DB) LoadOptions() []compile.LoadOption {
	if _, ok := db.Dialect.(compile.Postgres); ok {
		return []compile.LoadOption{compile.WithCopy(Copy)}
	}
	return nil
}

// Load is compile.Load into db with db's LoadOptions.
func Load(ctx context.Context, db *DB, m *compile.Mapping, p *schema.Project) error {
	if db == nil {
		return errors.New("engine: Load needs an open database")
	}
	return compile.Load(ctx, db.SQL, db.Dialect, m, p, db.LoadOptions()...)
}

// NewLoader is compile.NewLoader into db with db's LoadOptions.
func NewLoader(ctx context.Context, db *DB, m *compile.Mapping) (*compile.Loader, error) {
	if db == nil {
		return nil, errors.New("engine: NewLoader needs an open database")
	}
	return compile.NewLoader(ctx, db.SQL, db.Dialect, m, db.LoadOptions()...)
}
