// Package store is where CroQL meets a database: it opens the engines,
// creates the tables of a mapping (DDL), loads a project into them
// atomically (Load, LoadFile, Loader), reads objects back (ReadObjects),
// writes and reads single rows of a catalog object with the loader's and
// the reader's rules (Rows, RowsOf, with the statement builders
// UpdateSQL, SelectSQL, DeleteSQL),
// runs compiled queries with deadlines the server enforces too (Run,
// RunSQL, TimedTx), classifies the engines' errors (Classify, Retry), and
// answers on a sharded engine what it refuses (Exec, Coordinate). Package
// compile writes the SQL; package mapping names the tables and columns.
//
// It opens the SQL engines the compiler targets, each the way the compiled
// SQL expects a connection to be:
//
//   - sqlite: embedded modernc.org/sqlite (in memory by default) with the
//     croql_fold and croql_contains functions registered on a private
//     driver, so that a case-insensitive contains agrees with the
//     evaluator and a contains takes linear time;
//   - postgres: pgx's database/sql driver, in a fresh schema with a random
//     name that Close drops (search_path is set on every connection);
//   - mysql: go-sql-driver/mysql with the utf8mb4 charset, in a fresh
//     database with a random name that Close drops.
//
// Scratch schemas keep test runs and `croql query --engine` loads isolated
// from each other and from the data already in the server. Their names
// carry their creation time (ScratchPrefix), and the run that made one
// holds a session lock named after it while it lives: Open drops the
// scratch schemas whose lock is free, which a crashed or killed run left
// behind (and those of older croql runs, which took no lock, once older
// than LeftoverAge).
//
// Everything that differs between the engines is in one file each
// (postgres.go, mysql.go, sqlite.go, behind the backend interface of
// backend.go): which DSNs are theirs (EngineOfDSN, the one DSN parser of
// every croql command), pools and their size, scratch schemas, moving a
// finished load into its target (OpenTarget, atomic loads), and the
// classes of their errors (Classify). The rest of the package, and the
// server, never ask which engine they have.
package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"modernc.org/sqlite"

	"github.com/croql/croql/compile"
)

// DB is an open database of one engine.
type DB struct {
	// SQL is the connection pool, bound to the scratch schema.
	SQL *sql.DB
	// Dialect is the compiler dialect of the engine.
	Dialect compile.Dialect
	// Schema is the scratch schema (postgres) or database (mysql) the
	// pool works in, which Close drops (for OpenTarget, where the load is
	// built before it moves into its target); empty for sqlite.
	Schema string

	backend  backend
	unlogged bool // scratch data: PostgreSQL tables skip the WAL
	// publish, set by OpenTarget, moves a finished load into its target.
	publish func(ctx context.Context) error

	// prefix names the tables a load builds beside its target's, for an
	// engine that renames them into place (Vitess); empty elsewhere.
	prefix string

	close func() error
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

// Open opens engine ("sqlite", "postgres", "mysql" or "vitess"; aliases as
// compile.DialectByName takes them) in a scratch schema of its own. dsn
// is required for postgres and mysql; for sqlite an empty dsn is a
// private in-memory database.
func Open(ctx context.Context, engine, dsn string) (*DB, error) {
	b, err := backendByName(engine)
	if err != nil {
		return nil, err
	}
	sc := b.scratch()
	if sc == nil {
		return OpenSQLite(dsn)
	}
	if dsn == "" {
		return nil, fmt.Errorf("store: %s needs a DSN, e.g. %s", b.name(), exampleDSN(b.name()))
	}
	db, name, drop, err := openScratch(ctx, b, dsn)
	if err != nil {
		return nil, err
	}
	return &DB{SQL: db, Dialect: b.dialect(), Schema: name, unlogged: true, backend: b,
		close: func() error { return errors.Join(db.Close(), drop()) }}, nil
}

// exampleDSN is a DSN of engine for messages.
func exampleDSN(engine string) string {
	switch engine {
	case "mysql":
		return "mysql://root@127.0.0.1:3306/test"
	case "vitess":
		return "vitess://root@127.0.0.1:33303/croql"
	}
	return "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"
}

// openScratch creates a scratch schema (database) on the server at dsn,
// after dropping the leftovers of crashed runs, and opens a pool in it.
// drop drops it and closes the administrative pool.
func openScratch(ctx context.Context, b backend, dsn string) (db *sql.DB, name string, drop func() error, err error) {
	sc := b.scratch()
	d := b.dialect()
	admin, err := b.pool(dsn, "")
	if err != nil {
		return nil, "", nil, err
	}
	drop = func() error {
		return errors.Join(dropScratch(admin, fmt.Sprintf(sc.drop, d.Quote(name))), admin.Close())
	}
	if sc.pool > 0 {
		if name, err = takePooled(ctx, b, admin); err != nil {
			admin.Close()
			return nil, "", nil, err
		}
	} else {
		now := time.Now()
		name, err = scratchName(now)
		if err != nil {
			admin.Close()
			return nil, "", nil, err
		}
		if sc.lock != "" {
			// The lock is taken before the schema exists, so that no
			// other run ever sees it without its lock.
			name += lockedSuffix
			lock, err := holdLock(ctx, admin, sc, name)
			if err != nil {
				admin.Close()
				return nil, "", nil, fmt.Errorf("store: %s: %w", b.name(), err)
			}
			drop = func() error {
				return errors.Join(dropScratch(admin, fmt.Sprintf(sc.drop, d.Quote(name))), lock(), admin.Close())
			}
		}
		dropLeftovers(ctx, admin, sc, d.Quote, now)
		if _, err := admin.ExecContext(ctx, fmt.Sprintf(sc.create, d.Quote(name))); err != nil {
			// A cancelled context may have stopped only the wait for the
			// answer: the schema may exist all the same.
			return nil, "", nil, errors.Join(fmt.Errorf("store: %s: %w", b.name(), err), drop())
		}
	}
	db, err = b.pool(dsn, name)
	if err != nil {
		return nil, "", nil, errors.Join(err, drop())
	}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, "", nil, errors.Join(fmt.Errorf("store: %s: %w", b.name(), err), drop())
	}
	return db, name, drop, nil
}

// OpenDSN opens the database dsn names as it is, for reading the data
// already there: no scratch schema, and nothing is created (a SQLite file
// must exist). The engine follows from the DSN (EngineOfDSN).
func OpenDSN(ctx context.Context, dsn string) (*DB, error) {
	b, err := backendByName(EngineOfDSN(dsn))
	if err != nil {
		return nil, err
	}
	if b.scratch() == nil {
		name := strings.TrimPrefix(dsn, "file:")
		if i := strings.IndexByte(name, '?'); i >= 0 {
			name = name[:i]
		}
		if _, err := os.Stat(name); err != nil {
			return nil, fmt.Errorf("store: sqlite: %w", err)
		}
	}
	db, err := b.pool(dsn, "")
	if err != nil {
		return nil, err
	}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("store: %s: %w", b.name(), err)
	}
	return &DB{SQL: db, Dialect: b.dialect(), backend: b, close: db.Close}, nil
}

// OpenLoaded opens the store that a load completed at dsn, as it is
// (OpenDSN), and checks its load marker (CheckLoaded). engine, when not
// empty, is the engine the caller expects: a DSN of another engine is an
// error that says which it is.
func OpenLoaded(ctx context.Context, engine, dsn string) (*DB, error) {
	if engine != "" {
		b, err := backendByName(engine)
		if err != nil {
			return nil, err
		}
		if e := EngineOfDSN(dsn); e != b.name() {
			return nil, fmt.Errorf("store: the DSN is a %s DSN, not %s", e, b.name())
		}
	}
	db, err := OpenDSN(ctx, dsn)
	if err != nil {
		return nil, err
	}
	if err := CheckLoaded(ctx, db.SQL, db.Dialect); err != nil {
		return nil, errors.Join(fmt.Errorf("store: refusing to serve %s: %w", db.backend.name(), err), db.Close())
	}
	return db, nil
}

// LoadsBeside reports whether engine loads into a scratch schema or
// database beside the data at a DSN (PostgreSQL, MariaDB, Vitess), rather
// than into a file of its own (SQLite, where a DSN names one file and a
// load makes a new one).
func LoadsBeside(engine string) bool {
	b, err := backendByName(engine)
	return err == nil && b.scratch() != nil
}

// SQLiteDriver returns a modernc.org/sqlite driver of its own with the
// croql_fold function registered (compile.Fold) and croql_contains
// (compile.SQLite's Contains), leaving the package's global driver
// untouched.
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
		return nil, fmt.Errorf("store: registering %s: %w", compile.FoldFunc, err)
	}
	if err := registerContains(d); err != nil {
		return nil, err
	}
	return d, nil
}

type sqliteConnector struct {
	d   *sqlite.Driver
	dsn string
}

func (c sqliteConnector) Connect(context.Context) (driver.Conn, error) {
	conn, err := c.d.Open(c.dsn)
	if err != nil {
		return nil, err
	}
	return newCachingConn(conn, SQLiteStatementCache), nil
}
func (c sqliteConnector) Driver() driver.Driver { return c.d }

// OpenSQLite opens a SQLite database with croql_fold and croql_contains;
// an empty dsn is a private in-memory database (one connection, so that
// it stays one database).
func OpenSQLite(dsn string) (*DB, error) {
	db, err := openSQLitePool(dsn)
	if err != nil {
		return nil, err
	}
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, fmt.Errorf("store: sqlite: %w", err)
	}
	return &DB{SQL: db, Dialect: compile.SQLite{}, backend: sqliteBackend{}, close: db.Close}, nil
}

// openSQLitePool is OpenSQLite's pool, not yet connected.
func openSQLitePool(dsn string) (*sql.DB, error) {
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
	return db, nil
}

// ScratchPrefix starts the name of every scratch schema (postgres) or
// database (mysql) Open creates: croql_<unix seconds>_<12 hex digits>.
const ScratchPrefix = "croql_"

// LeftoverAge is how old a scratch schema must be before Open drops it as
// the leftover of a run that crashed (a killed process cannot drop its
// own). Younger ones may belong to runs still going.
const LeftoverAge = 6 * time.Hour

// scratchName is a fresh schema or database name carrying its creation
// time.
func scratchName(now time.Time) (string, error) {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("store: %w", err)
	}
	return ScratchPrefix + strconv.FormatInt(now.Unix(), 10) + "_" + hex.EncodeToString(b[:]), nil
}

// dropTimeout bounds the drop of a scratch schema: it runs after the
// caller's context may have been cancelled (a signal), so it has a
// context of its own.
const dropTimeout = 30 * time.Second

// dropScratch runs a DROP statement on admin with a fresh context.
func dropScratch(admin *sql.DB, stmt string) error {
	ctx, cancel := context.WithTimeout(context.Background(), dropTimeout)
	defer cancel()
	_, err := admin.ExecContext(ctx, stmt)
	return err
}

// lockedSuffix ends the name of a scratch schema whose run holds a
// session lock named after it (scratchSQL.lock) for as long as it lives:
// a schema whose lock is free belongs to a run that died, and the next
// Open drops it at once. Schemas without it (made by an older croql)
// are dropped once older than LeftoverAge.
const lockedSuffix = "_l"

// scratchTime returns the creation time a scratch name carries, and
// whether the name is of a run that holds its lock (lockedSuffix); false
// for any other name (another program's schema, or a scratch schema of
// an older croql, which named no time).
func scratchTime(name string) (t time.Time, locked, ok bool) {
	rest, ok := strings.CutPrefix(name, ScratchPrefix)
	if !ok {
		return time.Time{}, false, false
	}
	rest, locked = strings.CutSuffix(rest, lockedSuffix)
	secs, suffix, ok := strings.Cut(rest, "_")
	if !ok || len(suffix) != 12 {
		return time.Time{}, false, false
	}
	if _, err := hex.DecodeString(suffix); err != nil {
		return time.Time{}, false, false
	}
	n, err := strconv.ParseInt(secs, 10, 64)
	if err != nil || n <= 0 {
		return time.Time{}, false, false
	}
	return time.Unix(n, 0), locked, true
}

// holdLock takes the session lock of the scratch schema name on a
// connection of its own, kept until release (which gives the lock and
// the connection back). A lock another session holds is an error: the
// name is taken.
func holdLock(ctx context.Context, admin *sql.DB, sc *scratchSQL, name string) (release func() error, err error) {
	conn, err := admin.Conn(ctx)
	if err != nil {
		return nil, err
	}
	got, err := tryLock(ctx, conn, sc, name)
	if err == nil && !got {
		err = fmt.Errorf("the lock of scratch schema %s is held by another session", name)
	}
	if err != nil {
		conn.Close()
		return nil, err
	}
	return func() error {
		ctx, cancel := context.WithTimeout(context.Background(), dropTimeout)
		defer cancel()
		_, err := conn.ExecContext(ctx, sc.unlock, name)
		return errors.Join(err, conn.Close())
	}, nil
}

// tryLock takes the session lock of name on conn without waiting, and
// says whether it got it.
func tryLock(ctx context.Context, conn *sql.Conn, sc *scratchSQL, name string) (bool, error) {
	var got sql.NullBool
	if err := conn.QueryRowContext(ctx, sc.lock, name).Scan(&got); err != nil {
		return false, err
	}
	return got.Valid && got.Bool, nil
}

// dropLeftovers drops the scratch schemas (or databases) that sc.list
// names and whose runs are gone: those whose session lock is free (a
// run that holds none died, however young its schema), and those of
// older croql runs, which hold no lock, once older than LeftoverAge at
// now. Failures are ignored: a leftover another run drops first is no
// error, and cleaning is a courtesy that must not fail the run.
func dropLeftovers(ctx context.Context, db *sql.DB, sc *scratchSQL, quote func(string) string, now time.Time) []string {
	rows, err := db.QueryContext(ctx, sc.list, ScratchPrefix+"%")
	if err != nil {
		return nil
	}
	var old, locked []string
	for rows.Next() {
		var name string
		if rows.Scan(&name) != nil {
			continue
		}
		t, withLock, ok := scratchTime(name)
		switch {
		case !ok:
		case withLock && sc.lock != "":
			locked = append(locked, name)
		case !withLock && now.Sub(t) > LeftoverAge:
			old = append(old, name)
		}
	}
	rows.Close()
	var dropped []string
	for _, name := range old {
		if _, err := db.ExecContext(ctx, fmt.Sprintf(sc.drop, quote(name))); err == nil {
			dropped = append(dropped, name)
		}
	}
	for _, name := range locked {
		if dropDead(ctx, db, sc, quote, name) {
			dropped = append(dropped, name)
		}
	}
	return dropped
}

// dropDead drops the scratch schema name if its lock is free (its run
// died), holding the lock while it drops; it reports whether it dropped.
func dropDead(ctx context.Context, db *sql.DB, sc *scratchSQL, quote func(string) string, name string) bool {
	conn, err := db.Conn(ctx)
	if err != nil {
		return false
	}
	defer conn.Close()
	if got, err := tryLock(ctx, conn, sc, name); err != nil || !got {
		return false
	}
	_, err = conn.ExecContext(ctx, fmt.Sprintf(sc.drop, quote(name)))
	_, _ = conn.ExecContext(ctx, sc.unlock, name)
	return err == nil
}

// Names lists the engines Open takes.
func Names() string { return strings.Join([]string{"sqlite", "postgres", "mysql", "vitess"}, ", ") }

// takePooled creates the first free scratch schema of an engine whose
// scratch schemas are a pool (scratchSQL.pool) and returns its name.
func takePooled(ctx context.Context, b backend, admin *sql.DB) (string, error) {
	sc, d := b.scratch(), b.dialect()
	base, err := b.current(ctx, admin)
	if err != nil {
		return "", err
	}
	var last error
	for i := 1; i <= sc.pool; i++ {
		name := base + "_scratch" + strconv.Itoa(i)
		_, err := admin.ExecContext(ctx, fmt.Sprintf(sc.create, d.Quote(name)))
		if err == nil && sc.created != "" {
			if _, err := admin.ExecContext(ctx, fmt.Sprintf(sc.created, d.Quote(name))); err != nil {
				return "", errors.Join(fmt.Errorf("store: %s: %w", b.name(), err), dropScratch(admin, fmt.Sprintf(sc.drop, d.Quote(name))))
			}
		}
		if err == nil {
			return name, nil
		}
		if ctx.Err() != nil {
			return "", fmt.Errorf("store: %s: %w", b.name(), err)
		}
		last = err
	}
	return "", fmt.Errorf("store: %s: no free scratch keyspace %s_scratch1..%d (all in use, or not declared by the cluster): %w", b.name(), base, sc.pool, last)
}
