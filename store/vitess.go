package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/croql/croql/compile"
	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
)

// vitessBackend is a sharded keyspace behind Vitess's vtgate, spoken to
// over vtgate's MySQL protocol with go-sql-driver/mysql. Its DSN is
// vitess://user:password@host:port/keyspace (port: vtgate's MySQL port).
//
// Vitess makes databases (keyspaces) only through its own tools, so the
// scratch keyspaces of Open are a pool the cluster declares, sharded like
// the keyspace: <keyspace>_scratch1 to <keyspace>_scratch<vitessScratch>.
// A run takes one with CREATE DATABASE, which vtgate answers (with the
// test server's dbddl plugin) by bringing the keyspace back empty with its
// declared shards, and gives it back with DROP DATABASE. .ci/vitess.sh
// starts such a cluster.
type vitessBackend struct{}

// vitessScratch is the number of scratch keyspaces of a cluster.
const vitessScratch = 8

func (vitessBackend) name() string             { return "vitess" }
func (vitessBackend) dialect() compile.Dialect { return compile.Vitess{} }

func (vitessBackend) claims(dsn string) bool {
	return strings.HasPrefix(strings.ToLower(strings.TrimSpace(dsn)), "vitess://")
}

// pool: go-sql-driver/mysql binds the parameters itself
// (interpolateParams): vtgate's prepared statements miscount the
// parameters of some of croql's statements ("expected 0 arguments, got
// 1"). The values are still escaped by the driver, never spliced in by
// croql.
func (vitessBackend) pool(dsn, schema string) (*sql.DB, error) {
	dsn = "mysql://" + strings.TrimSpace(dsn)[len("vitess://"):]
	if strings.Contains(dsn, "?") {
		dsn += "&interpolateParams=true"
	} else {
		dsn += "?interpolateParams=true"
	}
	return mysqlBackend{}.pool(dsn, schema)
}

func (vitessBackend) scratch() *scratchSQL {
	return &scratchSQL{
		create: "CREATE DATABASE %s",
		drop:   "DROP DATABASE IF EXISTS %s",
		pool:   vitessScratch,
		// The first VSchema change publishes the keyspace's VSchema
		// (sharded) to vtgate; the test server's CREATE DATABASE does not.
		created: "ALTER VSCHEMA CREATE VINDEX %s.`hash` USING `hash`",
	}
}

// publish is not offered: a keyspace's tables cannot move between
// keyspaces in one step through vtgate.
func (vitessBackend) publish(context.Context, *sql.DB, string, string, bool, []string) error {
	return errors.New("store: vitess: a lasting load goes through OpenTarget's in-keyspace swap")
}

// current is the keyspace, which vtgate answers as the database.
func (vitessBackend) current(ctx context.Context, admin *sql.DB) (string, error) {
	ks, err := mysqlBackend{}.current(ctx, admin)
	if err != nil {
		return "", fmt.Errorf("store: vitess (a keyspace: vitess://user@host:port/keyspace): %w", err)
	}
	return ks, nil
}

// classify: vtgate answers with MySQL error numbers, and its own timeout
// (QUERY_TIMEOUT_MS) as 1317, query interrupted.
func (vitessBackend) classify(err error) (Class, string) {
	var my *mysql.MySQLError
	if errors.As(err, &my) && my.Number == 1317 {
		return Timeout, my.Message
	}
	return mysqlBackend{}.classify(err)
}

// inPlaceTarget is a backend whose lasting loads are built beside the
// target's tables, under scratch names (DB.prefix), and renamed into place.
type inPlaceTarget interface {
	openTarget(ctx context.Context, dsn, keyspace string) (*DB, error)
}

// openTarget is OpenTarget on Vitess: the keyspace must exist (Vitess
// makes keyspaces with its own tools). The load's tables are
// <scratch name>_<table> in the keyspace, each with its vindex; publish
// declares the vindexes of the target names and renames every table into
// place in one RENAME TABLE; Close drops what is left of the scratch
// tables and their VSchema entries.
func (b vitessBackend) openTarget(ctx context.Context, dsn, keyspace string) (*DB, error) {
	if keyspace == "" {
		admin, err := b.pool(dsn, "")
		if err != nil {
			return nil, err
		}
		keyspace, err = b.current(ctx, admin)
		admin.Close()
		if err != nil {
			return nil, err
		}
	}
	db, err := b.pool(dsn, keyspace)
	if err != nil {
		return nil, err
	}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("store: vitess: keyspace %s: %w", keyspace, err)
	}
	now := time.Now()
	name, err := scratchName(now)
	if err != nil {
		db.Close()
		return nil, err
	}
	prefix := name + "_"
	d := compile.Vitess{}
	b.dropScratchTables(ctx, db, func(p string) bool {
		t, _, ok := scratchTime(p)
		return ok && now.Sub(t) > LeftoverAge
	})
	out := &DB{SQL: db, Dialect: d, Schema: keyspace, backend: b, prefix: prefix}
	out.close = func() error {
		ctx, cancel := context.WithTimeout(context.Background(), dropTimeout)
		defer cancel()
		err := b.dropScratchTables(ctx, db, func(p string) bool { return p == name })
		return errors.Join(err, db.Close())
	}
	out.publish = func(ctx context.Context) error {
		m := mapping.Default(schema.New())
		keys := m.ShardKeys()
		tables := append(m.TableNames(), mapping.LoadMarker, mapping.ProjectTable)
		parts := make([]string, len(tables))
		for i, t := range tables {
			parts[i] = d.Quote(prefix+t) + " TO " + d.Quote(t)
		}
		for _, t := range tables {
			for _, stmt := range d.ShardTable(t, keys[t]) {
				// 1815: the vindex is there already (from an earlier load).
				var my *mysql.MySQLError
				if _, err := db.ExecContext(ctx, stmt); err != nil && !(errors.As(err, &my) && my.Number == 1815) {
					return fmt.Errorf("store: vitess: declaring the shard key of %s: %w", t, err)
				}
			}
		}
		if _, err := db.ExecContext(ctx, "RENAME TABLE "+strings.Join(parts, ", ")); err != nil {
			return fmt.Errorf("store: vitess: moving the tables into place in keyspace %s: %w", keyspace, err)
		}
		return nil
	}
	return out, nil
}

// dropScratchTables drops the scratch tables of the keyspace db is in
// whose scratch name (the part before the table's name) drop accepts,
// with their VSchema entries. It returns the first failure.
func (vitessBackend) dropScratchTables(ctx context.Context, db *sql.DB, drop func(scratch string) bool) error {
	rows, err := db.QueryContext(ctx, "SHOW TABLES")
	if err != nil {
		return fmt.Errorf("store: vitess: %w", err)
	}
	var tables []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			rows.Close()
			return fmt.Errorf("store: vitess: %w", err)
		}
		// croql_<secs>_<12 hex>_<table>
		if i := strings.Index(t, "_"); i >= 0 {
			if j := strings.Index(t[i+1:], "_"); j >= 0 {
				if k := i + 1 + j + 1 + 12; k < len(t) && t[k] == '_' && drop(t[:k]) {
					tables = append(tables, t)
				}
			}
		}
	}
	rows.Close()
	d := compile.Vitess{}
	var errs []error
	for _, t := range tables {
		if _, err := db.ExecContext(ctx, "DROP TABLE IF EXISTS "+d.Quote(t)); err != nil {
			errs = append(errs, err)
		}
		_, _ = db.ExecContext(ctx, "ALTER VSCHEMA DROP TABLE "+d.Quote(t))
	}
	if len(errs) > 0 {
		return fmt.Errorf("store: vitess: dropping scratch tables: %w", errors.Join(errs...))
	}
	return nil
}

// loadOptions: a load of OpenTarget builds under its scratch names.
func (vitessBackend) loadOptions(db *DB) []LoadOption {
	if db.prefix == "" {
		return nil
	}
	return []LoadOption{WithTablePrefix(db.prefix)}
}
