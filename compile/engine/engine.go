// Package engine opens the three SQL engines the compiler targets, each
// the way the compiled SQL expects a connection to be:
//
//   - sqlite: embedded modernc.org/sqlite (in memory by default) with the
//     croql_fold function registered on a private driver, so that a
//     case-insensitive contains agrees with the evaluator;
//   - postgres: pgx's database/sql driver, in a fresh schema with a random
//     name that Close drops (search_path is set on every connection);
//   - mysql: go-sql-driver/mysql with the utf8mb4 charset, in a fresh
//     database with a random name that Close drops.
//
// Scratch schemas keep test runs and `croql query --engine` loads isolated
// from each other and from the data already in the server.
package engine

import (
	"context"
	"crypto/rand"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"modernc.org/sqlite"

	"github.com/croql/croql/compile"
)

// DB is an open database of one engine.
type DB struct {
	// SQL is the connection pool, bound to the scratch schema.
	SQL *sql.DB
	// Dialect is the compiler dialect of the engine.
	Dialect compile.Dialect
	// Schema is the scratch schema (postgres) or database (mysql); empty
	// for sqlite.
	Schema string
	close  func() error
}

// Close closes the pool and drops the scratch schema or database.
func (db *DB) Close() error {
	if db == nil || db.close == nil {
		return nil
	}
	err := db.close()
	db.close = nil
	return err
}

// Open opens engine ("sqlite", "postgres" or "mysql"; aliases as
// compile.DialectByName takes them). dsn is required for postgres and
// mysql; for sqlite an empty dsn is a private in-memory database.
func Open(ctx context.Context, engine, dsn string) (*DB, error) {
	d, err := compile.DialectByName(engine)
	if err != nil {
		return nil, err
	}
	switch d.(type) {
	case compile.SQLite:
		return OpenSQLite(dsn)
	case compile.Postgres:
		return openPostgres(ctx, dsn)
	default:
		return openMySQL(ctx, dsn)
	}
}

// SQLiteDriver returns a modernc.org/sqlite driver of its own with the
// croql_fold function registered (compile.Fold), leaving the package's
// global driver untouched.
func SQLiteDriver() (*sqlite.Driver, error) {
	d := &sqlite.Driver{}
	err := d.RegisterDeterministicScalarFunction(compile.FoldFunc, 1, func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		switch v := args[0].(type) {
		case nil:
			return nil, nil
		// The result is a BLOB: a TEXT result would end at a NUL
		// character. instr on two BLOBs searches bytes, which is what
		// contains on two folded texts needs.
		case string:
			return []byte(compile.Fold(v)), nil
		case []byte:
			return []byte(compile.Fold(string(v))), nil
		default:
			return nil, fmt.Errorf("%s: not a string: %T", compile.FoldFunc, v)
		}
	})
	if err != nil {
		return nil, fmt.Errorf("engine: registering %s: %w", compile.FoldFunc, err)
	}
	return d, nil
}

type sqliteConnector struct {
	d   *sqlite.Driver
	dsn string
}

func (c sqliteConnector) Connect(context.Context) (driver.Conn, error) { return c.d.Open(c.dsn) }
func (c sqliteConnector) Driver() driver.Driver                        { return c.d }

// OpenSQLite opens a SQLite database with croql_fold; an empty dsn is a
// private in-memory database (one connection, so that it stays one
// database).
func OpenSQLite(dsn string) (*DB, error) {
	drv, err := SQLiteDriver()
	if err != nil {
		return nil, err
	}
	mem := dsn == ""
	if mem {
		dsn = "file:croql?mode=memory"
	}
	db := sql.OpenDB(sqliteConnector{d: drv, dsn: dsn})
	if mem {
		db.SetMaxOpenConns(1)
		db.SetMaxIdleConns(1)
		db.SetConnMaxLifetime(0)
		db.SetConnMaxIdleTime(0)
	}
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, fmt.Errorf("engine: sqlite: %w", err)
	}
	return &DB{SQL: db, Dialect: compile.SQLite{}, close: db.Close}, nil
}

// scratchName is a fresh schema or database name.
func scratchName() (string, error) {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("engine: %w", err)
	}
	return "croql_" + hex.EncodeToString(b[:]), nil
}

func openPostgres(ctx context.Context, dsn string) (*DB, error) {
	if dsn == "" {
		return nil, errors.New("engine: postgres needs a DSN, e.g. postgres://postgres@127.0.0.1:5432/test?sslmode=disable")
	}
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("engine: postgres DSN: %w", err)
	}
	admin := stdlib.OpenDB(*cfg)
	name, err := scratchName()
	if err != nil {
		admin.Close()
		return nil, err
	}
	d := compile.Postgres{}
	if _, err := admin.ExecContext(ctx, "CREATE SCHEMA "+d.Quote(name)); err != nil {
		admin.Close()
		return nil, fmt.Errorf("engine: postgres: %w", err)
	}
	drop := func() error {
		_, err := admin.ExecContext(context.Background(), "DROP SCHEMA "+d.Quote(name)+" CASCADE")
		return errors.Join(err, admin.Close())
	}
	scfg := cfg.Copy()
	if scfg.RuntimeParams == nil {
		scfg.RuntimeParams = map[string]string{}
	}
	scfg.RuntimeParams["search_path"] = name
	db := stdlib.OpenDB(*scfg)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, errors.Join(fmt.Errorf("engine: postgres: %w", err), drop())
	}
	return &DB{SQL: db, Dialect: d, Schema: name, close: func() error { return errors.Join(db.Close(), drop()) }}, nil
}

func openMySQL(ctx context.Context, dsn string) (*DB, error) {
	if dsn == "" {
		return nil, errors.New("engine: mysql needs a DSN, e.g. root@tcp(127.0.0.1:3306)/test")
	}
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return nil, fmt.Errorf("engine: mysql DSN: %w", err)
	}
	// utf8mb4 on the connection: string parameters are converted to the
	// columns' utf8mb4 collation.
	cfg.Collation = "utf8mb4_general_ci"
	acon, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("engine: mysql: %w", err)
	}
	admin := sql.OpenDB(acon)
	name, err := scratchName()
	if err != nil {
		admin.Close()
		return nil, err
	}
	d := compile.MySQL{}
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+d.Quote(name)+" CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin"); err != nil {
		admin.Close()
		return nil, fmt.Errorf("engine: mysql: %w", err)
	}
	drop := func() error {
		_, err := admin.ExecContext(context.Background(), "DROP DATABASE "+d.Quote(name))
		return errors.Join(err, admin.Close())
	}
	scfg := cfg.Clone()
	scfg.DBName = name
	con, err := mysql.NewConnector(scfg)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("engine: mysql: %w", err), drop())
	}
	db := sql.OpenDB(con)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, errors.Join(fmt.Errorf("engine: mysql: %w", err), drop())
	}
	return &DB{SQL: db, Dialect: d, Schema: name, close: func() error { return errors.Join(db.Close(), drop()) }}, nil
}

// Names lists the engines Open takes.
func Names() string { return strings.Join([]string{"sqlite", "postgres", "mysql"}, ", ") }
