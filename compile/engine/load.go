package engine

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/croql/croql/compile"
	"github.com/croql/croql/schema"
)

// EngineOfDSN names the engine a DSN is for: postgres for a
// postgres:// or postgresql:// URL or a key=value string with host=,
// mysql for go-sql-driver's user@tcp(host)/db form, sqlite otherwise (a
// file name or a file: URI).
func EngineOfDSN(dsn string) string {
	switch {
	case strings.HasPrefix(dsn, "postgres://"), strings.HasPrefix(dsn, "postgresql://"), strings.Contains(dsn, "host="):
		return "postgres"
	case strings.Contains(dsn, "@tcp("), strings.Contains(dsn, "@unix("), strings.HasPrefix(dsn, "mysql://"):
		return "mysql"
	}
	return "sqlite"
}

// OpenTarget opens the database dsn names for a lasting load: no scratch
// schema, the tables go where the DSN points (PostgreSQL's search_path,
// MySQL's database, the SQLite file), or into schemaName (PostgreSQL
// schema, MySQL database) when it is not empty, created if need be. Close
// leaves the data in place.
func OpenTarget(ctx context.Context, engine, dsn, schemaName string) (*DB, error) {
	d, err := compile.DialectByName(engine)
	if err != nil {
		return nil, err
	}
	if dsn == "" {
		return nil, fmt.Errorf("engine: %s: a load needs a DSN", engine)
	}
	var db *sql.DB
	switch d.(type) {
	case compile.SQLite:
		if schemaName != "" {
			return nil, errors.New("engine: sqlite has no schemas: name another file")
		}
		return OpenSQLite(dsn)
	case compile.Postgres:
		cfg, err := pgx.ParseConfig(dsn)
		if err != nil {
			return nil, fmt.Errorf("engine: postgres DSN: %w", err)
		}
		if schemaName != "" {
			admin := stdlib.OpenDB(*cfg)
			_, err := admin.ExecContext(ctx, "CREATE SCHEMA IF NOT EXISTS "+d.Quote(schemaName))
			admin.Close()
			if err != nil {
				return nil, fmt.Errorf("engine: postgres: %w", err)
			}
			if cfg.RuntimeParams == nil {
				cfg.RuntimeParams = map[string]string{}
			}
			cfg.RuntimeParams["search_path"] = schemaName
		}
		db = stdlib.OpenDB(*cfg)
	default:
		cfg, err := mysql.ParseDSN(strings.TrimPrefix(dsn, "mysql://"))
		if err != nil {
			return nil, fmt.Errorf("engine: mysql DSN: %w", err)
		}
		cfg.Collation = "utf8mb4_general_ci"
		if schemaName != "" {
			acon, err := mysql.NewConnector(cfg)
			if err != nil {
				return nil, fmt.Errorf("engine: mysql: %w", err)
			}
			admin := sql.OpenDB(acon)
			_, err = admin.ExecContext(ctx, "CREATE DATABASE IF NOT EXISTS "+d.Quote(schemaName)+" CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin")
			admin.Close()
			if err != nil {
				return nil, fmt.Errorf("engine: mysql: %w", err)
			}
			cfg.DBName = schemaName
		}
		con, err := mysql.NewConnector(cfg)
		if err != nil {
			return nil, fmt.Errorf("engine: mysql: %w", err)
		}
		db = sql.OpenDB(con)
	}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("engine: %s: %w", engine, err)
	}
	return &DB{SQL: db, Dialect: d, close: db.Close}, nil
}

// LoadStats is what LoadFile stored.
type LoadStats struct {
	Objects int64 // strings, TM segments, glossary terms and concepts
	Rows    int64 // rows of every table
	Skipped int64 // lines skipped (ReadOptions.SkipBad)
}

// LoadFile streams a project file (JSON or NDJSON, docs/data-format.md)
// into db with the default mapping: it creates the tables, which must not
// exist, and stores each object as it is read, so that memory does not
// grow with the file. progress, when set, is called after each batch of
// objects with the stats so far. On an error nothing is committed.
func LoadFile(ctx context.Context, db *DB, r io.Reader, opts schema.ReadOptions, progress func(LoadStats)) (LoadStats, error) {
	var st LoadStats
	if db == nil || db.SQL == nil {
		return st, errors.New("engine: LoadFile needs an open database")
	}
	m := compile.DefaultMapping(schema.New())
	l, err := NewLoader(ctx, db, m)
	if err != nil {
		return st, err
	}
	skipped := opts.Skipped
	opts.Skipped = func(line int, err error) {
		st.Skipped++
		if skipped != nil {
			skipped(line, err)
		}
	}
	err = schema.Stream(ctx, r, opts, schema.Handler{
		Head: func(p *schema.Project) (func(*schema.Item) error, error) {
			return nil, l.Head(p)
		},
		Emit: func(items []*schema.Item) error {
			for _, it := range items {
				if err := l.Add(it.Value); err != nil {
					return fmt.Errorf("line %d: %w", it.Line, err)
				}
			}
			st.Objects += int64(len(items))
			st.Rows = l.Rows()
			if progress != nil {
				progress(st)
			}
			return nil
		},
	})
	if err != nil {
		l.Abort()
		return st, err
	}
	if err := l.Finish(); err != nil {
		return st, err
	}
	st.Rows = l.Rows()
	return st, nil
}
