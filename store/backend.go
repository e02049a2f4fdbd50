package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net"
	"syscall"

	"github.com/croql/croql/compile"
)

// backend is everything engine does differently per engine: one file
// each (postgres.go, mysql.go, sqlite.go). Nothing outside those files
// asks which engine it has. A new engine is a new file with a type
// implementing backend, listed in backends, and its compile.Dialect.
type backend interface {
	// name is the engine's name ("postgres"), as compile.DialectByName
	// takes it.
	name() string
	dialect() compile.Dialect
	// claims reports whether dsn is written in this engine's forms.
	claims(dsn string) bool
	// pool opens a connection pool on dsn, sized for the engine, with the
	// schema (PostgreSQL) or database (MySQL) set to schema when it is
	// not empty. It does not connect yet.
	pool(dsn, schema string) (*sql.DB, error)
	// scratch says how scratch schemas are made; nil for an engine that
	// has none (SQLite: a file, and transactional DDL).
	scratch() *scratchSQL
	// publish moves tables from the scratch schema into target in one
	// step: after it they are all in target or none is. create creates
	// target first when it is missing.
	publish(ctx context.Context, admin *sql.DB, scratch, target string, create bool, tables []string) error
	// current is the schema or database dsn points at.
	current(ctx context.Context, admin *sql.DB) (string, error)
	// classify names the class of a database error (Other when it is none
	// of this engine's) and the engine's own message.
	classify(err error) (Class, string)
	// loadOptions are the LoadOption of a load into db.
	loadOptions(db *DB) []LoadOption
}

// scratchSQL are the statements of an engine's scratch schemas: list
// takes a LIKE pattern parameter; the others are formats for the quoted
// name.
type scratchSQL struct {
	create, createIfMissing, drop, list string
	// pool, when not 0, says the engine cannot make a schema of any
	// name: the scratch schemas are <database>_scratch1 to
	// <database>_scratch<pool>, which the server declares, and a run takes
	// the first one that create succeeds on (Vitess: a sharded keyspace
	// that CREATE DATABASE brings back empty).
	pool int
	// created, when set, runs after create (a format for the quoted
	// name).
	created string
	// lock and unlock take and give back a session lock named after a
	// scratch schema (one parameter, the name); lock does not wait and
	// answers whether it got the lock. Empty: the engine's scratch
	// schemas hold no lock, and only their age tells a leftover.
	lock, unlock string
}

// backends lists the engines, in the order their DSN forms are tried:
// SQLite last, since any other text is a file name.
func backends() []backend {
	return []backend{postgresBackend{}, vitessBackend{}, mysqlBackend{}, sqliteBackend{}}
}

// backendByName returns the backend of engine (aliases as
// compile.DialectByName takes them).
func backendByName(engine string) (backend, error) {
	d, err := compile.DialectByName(engine)
	if err != nil {
		return nil, err
	}
	for _, b := range backends() {
		if b.name() == d.Name() {
			return b, nil
		}
	}
	return nil, fmt.Errorf("store: no engine for dialect %s", d.Name())
}

// EngineOfDSN names the engine a DSN is for, the one parser of DSNs
// every command uses:
//
//   - postgres: a postgres:// or postgresql:// URL, or a key=value string
//     with host= or dbname=;
//   - vitess: a vitess://user:password@host:port/keyspace URL, vtgate's
//     MySQL protocol port (see vitess.go);
//   - mysql: a mysql://user:password@host:port/db URL (port 3306 when
//     left out), or go-sql-driver's native user:password@tcp(host:port)/db
//     and user@unix(/path)/db forms (also after mysql://);
//   - sqlite otherwise: a file name or a file: URI.
func EngineOfDSN(dsn string) string {
	for _, b := range backends() {
		if b.claims(dsn) {
			return b.name()
		}
	}
	return "sqlite"
}

// Class is the kind of a database error, for what a caller tells its
// user: a server answers a timeout or an unavailable database with 503, an
// engine limit with 400.
type Class int

// The classes of Classify.
const (
	// Other is any other error.
	Other Class = iota
	// Timeout: the engine stopped the statement at its statement timeout.
	Timeout
	// Limit: the statement is too large for the engine (expression depth,
	// parameters, stack).
	Limit
	// Unavailable: the database cannot be reached, refuses connections,
	// or is shutting down.
	Unavailable
	// Retry: the engine cancelled the statement for a reason that passes,
	// and the same statement may succeed when run again: a serialization
	// failure, among them a PostgreSQL hot standby cancelling a query that
	// conflicts with the recovery it replays, and a deadlock.
	Retry
)

func (c Class) String() string {
	switch c {
	case Timeout:
		return "timeout"
	case Limit:
		return "engine limit"
	case Unavailable:
		return "unavailable"
	case Retry:
		return "retry"
	}
	return "other"
}

// Classify names the class of err, an error of a database of any engine,
// and returns the engine's own message for it.
func Classify(err error) (Class, string) {
	if err == nil {
		return Other, ""
	}
	for _, b := range backends() {
		if c, msg := b.classify(err); c != Other {
			return c, msg
		}
	}
	var ne net.Error
	if errors.Is(err, driver.ErrBadConn) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.As(err, &ne) {
		return Unavailable, err.Error()
	}
	return Other, err.Error()
}
