package engine

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"github.com/croql/croql/compile"
)

// sqliteBackend is embedded SQLite (modernc.org/sqlite) with croql_fold.
type sqliteBackend struct{}

func (sqliteBackend) name() string             { return "sqlite" }
func (sqliteBackend) dialect() compile.Dialect { return compile.SQLite{} }

// claims: any file name or file: URI; the other engines are asked first.
func (sqliteBackend) claims(dsn string) bool {
	l := strings.ToLower(dsn)
	return strings.HasPrefix(l, "file:") || !strings.Contains(l, "://")
}

func (sqliteBackend) pool(dsn, schema string) (*sql.DB, error) {
	if schema != "" {
		return nil, errors.New("engine: sqlite has no schemas: name another file")
	}
	db, err := openSQLitePool(dsn)
	if err != nil {
		return nil, err
	}
	return db, nil
}

// scratch: none. A SQLite load is one transaction, tables included
// (compile.SQLite's BulkLoad), so it needs no scratch to be atomic.
func (sqliteBackend) scratch() *scratchSQL { return nil }

func (sqliteBackend) publish(context.Context, *sql.DB, string, string, bool, []string) error {
	return errors.New("engine: sqlite has no schemas")
}

func (sqliteBackend) current(context.Context, *sql.DB) (string, error) { return "", nil }

func (sqliteBackend) classify(err error) (Class, string) {
	msg := err.Error()
	// SQLite reports its own limits on a statement's size as SQLITE_ERROR
	// (or SQLITE_TOOBIG) with these texts.
	for _, s := range []string{"Expression tree is too large", "Recursion limit", "too many SQL variables",
		"parser stack overflow", "too many terms", "string or blob too big", "too many columns"} {
		if strings.Contains(msg, s) {
			if i := strings.LastIndex(msg, ": "); i >= 0 {
				msg = msg[i+2:]
			}
			return Limit, msg
		}
	}
	return Other, ""
}

func (sqliteBackend) loadOptions(*DB) []compile.LoadOption { return nil }
