package store

import (
	"bytes"
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"

	"modernc.org/sqlite"

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
		return nil, errors.New("store: sqlite has no schemas: name another file")
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
	return errors.New("store: sqlite has no schemas")
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

func (sqliteBackend) loadOptions(*DB) []LoadOption { return nil }

// registerContains registers compile.ContainsFunc on d: the substring test
// on the bytes of two values, with Go's bytes.Contains. SQLite's instr
// compares the needle at every offset, so its time is the product of the
// two lengths (a 30 MB text and a 60,000-byte needle ran over 40 s), and one
// call is one step of the virtual machine: the interrupt that ends a
// statement at its context's deadline is not seen until it returns.
// bytes.Contains is linear in the two lengths. The arguments are views
// into SQLite's memory (VolatileArgs), not copies; the function keeps
// none of them.
func registerContains(d *sqlite.Driver) error {
	err := d.RegisterFunction(compile.ContainsFunc, &sqlite.FunctionImpl{
		NArgs:         2,
		Deterministic: true,
		VolatileArgs:  true,
		Scalar: func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
			// Both sides come as CAST(… AS BLOB): a BLOB or NULL.
			x, ok1 := args[0].([]byte)
			sub, ok2 := args[1].([]byte)
			switch {
			case args[0] == nil || args[1] == nil:
				return nil, nil
			case !ok1 || !ok2:
				return nil, fmt.Errorf("%s: not a BLOB: %T, %T", compile.ContainsFunc, args[0], args[1])
			}
			return bytes.Contains(x, sub), nil
		},
	})
	if err != nil {
		return fmt.Errorf("store: registering %s: %w", compile.ContainsFunc, err)
	}
	return nil
}

// SQLiteCache sizes a SQLite connection's memory for reading: its page
// cache (PRAGMA cache_size, per connection) and the part of the file it
// reads through a memory map (PRAGMA mmap_size: the operating system's
// page cache, shared by the connections and reclaimable). Zero leaves
// SQLite's own setting (a 2 MB cache, no map).
type SQLiteCache struct {
	PageCacheBytes, MmapBytes int64
}

// Defaults of croql serve's --sqlite-cache and --sqlite-mmap.
const (
	DefaultSQLitePageCache = 32 << 20
	DefaultSQLiteMmap      = 1 << 30
)

// DSN is dsn with the PRAGMAs that set c on every connection the
// driver opens (its _pragma parameters).
func (c SQLiteCache) DSN(dsn string) string {
	var add []string
	if c.PageCacheBytes > 0 {
		// A negative cache_size is in KiB.
		add = append(add, fmt.Sprintf("_pragma=cache_size(%d)", -max(1, c.PageCacheBytes>>10)))
	}
	if c.MmapBytes > 0 {
		add = append(add, fmt.Sprintf("_pragma=mmap_size(%d)", c.MmapBytes))
	}
	if len(add) == 0 {
		return dsn
	}
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	return dsn + sep + strings.Join(add, "&")
}
