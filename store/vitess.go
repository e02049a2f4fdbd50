package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
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
//
// Results do not stream (vtgate's workload OLTP): vtgate v0.24 fails a
// streamed query that it runs as a join of its own (EOF from vttablet; in
// a transaction, "in use: for streaming query"), and croql's reads run in
// transactions. vttablet then answers a query with at most
// --queryserver-config-max-result-size rows from a shard (10,000 by
// default), which an operator raises for projects with more (docs/serve.md,
// "Vitess"); beyond it the query fails with an engine limit (classify).
func (vitessBackend) pool(dsn, schema string) (*sql.DB, error) {
	cfg, err := parseMySQL("mysql://" + strings.TrimSpace(dsn)[len("vitess://"):])
	if err != nil {
		return nil, err
	}
	cfg.InterpolateParams = true
	return mysqlOpen(cfg, schema)
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
// (QUERY_TIMEOUT_MS) as 1317, query interrupted. vttablet's row limit per
// shard comes as 1317 too ("Row count exceeded"): an engine limit, not a
// timeout, with a message that names the setting.
func (vitessBackend) classify(err error) (Class, string) {
	var my *mysql.MySQLError
	if errors.As(err, &my) && my.Number == 1317 {
		if strings.Contains(my.Message, "Row count exceeded") {
			return Limit, "the query reads more rows from one shard than vttablet returns " +
				"(its --queryserver-config-max-result-size, 10,000 by default): " + my.Message
		}
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
	out.publish = func(ctx context.Context) error { return b.publishTarget(ctx, db, keyspace, prefix) }
	return out, nil
}

// publishTarget moves the tables of a load built under prefix into place
// in keyspace: it refuses a keyspace that holds one of the load's tables
// already, makes each target name's VSchema entry the load's (a hash
// vindex on the table's shard key: an entry left by an earlier table of
// that name, with another vindex or column, would send vtgate to shards
// where the rows are not), and renames every table in one RENAME TABLE.
// The scratch names' VSchema entries go with Close.
func (vitessBackend) publishTarget(ctx context.Context, db *sql.DB, keyspace, prefix string) error {
	d := compile.Vitess{}
	m := mapping.Default(schema.New())
	keys := m.ShardKeys()
	lks := vitessLookups(m)
	tables := append(m.TableNames(), mapping.LoadMarker, mapping.ProjectTable)
	for _, lk := range lks {
		tables = append(tables, lk.name)
		keys[lk.name] = "id"
	}
	have, err := listNames(ctx, db, "SHOW TABLES")
	if err != nil {
		return err
	}
	for _, t := range tables {
		if slices.Contains(have, t) {
			return fmt.Errorf("store: vitess: keyspace %s has a table %s already: load into a keyspace without croql's tables", keyspace, t)
		}
	}
	for _, t := range tables {
		own := slices.DeleteFunc(slices.Clone(lks), func(lk vitessLookup) bool { return lk.owner != t })
		if err := ownShardKey(ctx, db, d, t, keys[t], keyspace, own); err != nil {
			return err
		}
	}
	parts := make([]string, len(tables))
	for i, t := range tables {
		parts[i] = d.Quote(prefix+t) + " TO " + d.Quote(t)
	}
	if _, err := db.ExecContext(ctx, "RENAME TABLE "+strings.Join(parts, ", ")); err != nil {
		return fmt.Errorf("store: vitess: moving the tables into place in keyspace %s: %w", keyspace, err)
	}
	return awaitColumns(ctx, db, mapping.Default(schema.New()))
}

// ownShardKey makes the VSchema entry of table, which does not exist in
// the keyspace, a hash vindex on column and the lookup vindexes lks (in
// keyspace) and nothing else: an entry with anything else is dropped
// first.
func ownShardKey(ctx context.Context, q querier, d compile.Vitess, table, column, keyspace string, lks []vitessLookup) error {
	want := []string{strings.ToLower(column) + " hash hash"}
	for _, lk := range lks {
		want = append(want, strings.ToLower(lk.key+" "+lk.name+" lookup_unique"))
	}
	have, err := listVindexes(ctx, q, table)
	// An error here is a table the VSchema does not hold.
	switch {
	case err == nil && slices.Equal(slices.Sorted(slices.Values(have)), slices.Sorted(slices.Values(want))):
		return nil
	case err == nil && len(have) > 0:
		if err := alterVSchema(ctx, q, "ALTER VSCHEMA DROP TABLE "+d.Quote(table), table, false); err != nil {
			return fmt.Errorf("store: vitess: dropping the VSchema entry of %s (vindexes %s): %w", table, strings.Join(have, ", "), err)
		}
	}
	for _, stmt := range d.ShardTable(table, column) {
		if err := alterVSchema(ctx, q, stmt, table, true); err != nil {
			return fmt.Errorf("store: vitess: declaring the shard key of %s: %w", table, err)
		}
	}
	for _, lk := range lks {
		if err := addLookup(ctx, q, d, keyspace, lk); err != nil {
			return err
		}
	}
	return nil
}

// vschemaSettle bounds the wait for vtgate to apply a VSchema change.
const vschemaSettle = 10 * time.Second

// querier runs statements: a *sql.DB, *sql.Conn or *sql.Tx.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// alterVSchema runs stmt, a change of the VSchema entry of table (present:
// whether the entry is there after it), and waits until vtgate shows the
// change. vtgate applies each ALTER VSCHEMA to the VSchema it last read,
// which a change just before may not have reached yet: changes made in
// quick succession undo one another (dropped entries come back) unless
// each waits for the one before. A change still not shown after
// vschemaRetry is sent again (vtgate's 1815, the change is there already,
// then counts as done), until vschemaSettle.
func alterVSchema(ctx context.Context, q querier, stmt, table string, present bool) error {
	return alterVSchemaUntil(ctx, q, stmt, func(ctx context.Context) (bool, error) {
		has, err := hasVindex(ctx, q, table)
		return has == present, err
	})
}

// alterVSchemaUntil is alterVSchema with the check of the change: shown
// reports whether vtgate shows it.
func alterVSchemaUntil(ctx context.Context, q querier, stmt string, shown func(context.Context) (bool, error)) error {
	ctx, cancel := context.WithTimeout(ctx, vschemaSettle)
	defer cancel()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	var last error
	for try := 0; ; try++ {
		if _, err := q.ExecContext(ctx, stmt); err != nil {
			var my *mysql.MySQLError
			if try == 0 || !errors.As(err, &my) || my.Number != 1815 {
				return fmt.Errorf("store: vitess: %s: %w", stmt, err)
			}
		}
		retry := time.Now().Add(vschemaRetry)
		for time.Now().Before(retry) {
			ok, err := shown(ctx)
			if err == nil && ok {
				return nil
			}
			last = err
			select {
			case <-ctx.Done():
				return fmt.Errorf("store: vitess: vtgate did not apply %q within %s (%d tries): %w", stmt, vschemaSettle, try+1, errors.Join(last, ctx.Err()))
			case <-tick.C:
			}
		}
	}
}

// vschemaRetry is how long alterVSchema waits for vtgate to show a change
// before it sends the change again.
const vschemaRetry = 2 * time.Second

// hasVindex reports whether vtgate routes table by a vindex (SHOW VSCHEMA
// VINDEXES ON table, what vtgate plans with: SHOW VSCHEMA TABLES may
// still list a table whose entry is gone).
func hasVindex(ctx context.Context, q querier, table string) (bool, error) {
	rows, err := q.QueryContext(ctx, "SHOW VSCHEMA VINDEXES ON "+compile.Vitess{}.Quote(table))
	if err != nil {
		var my *mysql.MySQLError
		if errors.As(err, &my) && my.Number == 1146 {
			return false, nil
		}
		return false, fmt.Errorf("store: vitess: the vindexes of %s: %w", table, err)
	}
	has := rows.Next()
	return has, errors.Join(rows.Err(), rows.Close())
}

// listNames returns the first column of every row of query.
func listNames(ctx context.Context, q querier, query string) ([]string, error) {
	rows, err := q.QueryContext(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("store: vitess: %s: %w", query, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			return nil, fmt.Errorf("store: vitess: %s: %w", query, err)
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: vitess: %s: %w", query, err)
	}
	return out, nil
}

// dropScratchTables drops the scratch tables of the keyspace db is in
// whose scratch name (the part before the table's name) drop accepts,
// with their VSchema entries. It returns the first failure.
func (vitessBackend) dropScratchTables(ctx context.Context, db *sql.DB, drop func(scratch string) bool) error {
	tables, err := listNames(ctx, db, "SHOW TABLES")
	if err != nil {
		return err
	}
	// A renamed table's entry stays in the VSchema under the old name.
	// SHOW VSCHEMA TABLES lists too, for a while, tables vtgate's schema
	// tracking saw, entry or not: an entry is a table with a vindex.
	entries, err := listNames(ctx, db, "SHOW VSCHEMA TABLES")
	if err != nil {
		return err
	}
	d := compile.Vitess{}
	var errs []error
	for _, t := range tables {
		if scratchOf(t, drop) {
			if _, err := db.ExecContext(ctx, "DROP TABLE IF EXISTS "+d.Quote(t)); err != nil {
				errs = append(errs, err)
			}
		}
	}
	for _, t := range entries {
		if !scratchOf(t, drop) {
			continue
		}
		if has, err := hasVindex(ctx, db, t); err != nil || !has {
			if err != nil {
				errs = append(errs, err)
			}
			continue
		}
		if err := alterVSchema(ctx, db, "ALTER VSCHEMA DROP TABLE "+d.Quote(t), t, false); err != nil {
			errs = append(errs, err)
		}
	}
	// The scratch tables' lookup vindexes, once no entry names them.
	errs = append(errs, dropScratchVindexes(ctx, db, drop)...)
	if len(errs) > 0 {
		return fmt.Errorf("store: vitess: dropping scratch tables: %w", errors.Join(errs...))
	}
	return nil
}

// scratchOf reports whether table is a scratch table
// (croql_<secs>_<12 hex>_<table>) whose scratch name drop accepts.
func scratchOf(table string, drop func(scratch string) bool) bool {
	if i := strings.Index(table, "_"); i >= 0 {
		if j := strings.Index(table[i+1:], "_"); j >= 0 {
			if k := i + 1 + j + 1 + 12; k < len(table) && table[k] == '_' {
				return drop(table[:k])
			}
		}
	}
	return false
}

// loadOptions: a load of OpenTarget builds under its scratch names.
func (vitessBackend) loadOptions(db *DB) []LoadOption {
	if db.prefix == "" {
		return nil
	}
	return []LoadOption{WithTablePrefix(db.prefix)}
}

// columnsSettle bounds the wait for vtgate to learn the columns of the
// tables a load created or renamed.
const columnsSettle = 60 * time.Second

// awaitColumns waits until vtgate plans a statement that names every
// column of every table of m's layout (its counts, and
// mapping.ShardKeyColumn of the tables placed with their string,
// included). vtgate's schema tracking learns the columns of a new table
// some time after its CREATE TABLE or RENAME TABLE; until then it plans
// with the columns of the table it tracked under that name before, and
// refuses a column that table did not have (error 1054), as a load with
// another mapping than the keyspace's last one would otherwise see in its
// first reads.
func awaitColumns(ctx context.Context, q querier, m *mapping.Mapping) error {
	l, err := m.Layout()
	if err != nil {
		return err
	}
	tables := map[string][]string{}
	for _, t := range l.Tables {
		for _, c := range t.Columns {
			tables[t.Table.Name] = append(tables[t.Table.Name], c.Name)
		}
		for _, c := range t.Counts {
			tables[t.Table.Name] = append(tables[t.Table.Name], c.Name)
		}
	}
	for _, j := range l.Joins {
		tables[j.Name] = []string{j.From, j.To}
	}
	for t := range m.Colocated() {
		tables[t] = append(tables[t], mapping.ShardKeyColumn)
	}
	ctx, cancel := context.WithTimeout(ctx, columnsSettle)
	defer cancel()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for _, name := range slices.Sorted(maps.Keys(tables)) {
		for {
			missing, err := lacksColumns(ctx, q, name, tables[name])
			if err != nil {
				return fmt.Errorf("store: vitess: reading the columns of %s: %w", name, err)
			}
			if !missing {
				break
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("store: vitess: vtgate did not learn the columns of %s within %s: %w", name, columnsSettle, ctx.Err())
			case <-tick.C:
			}
		}
	}
	return nil
}

// lacksColumns reports whether vtgate refuses a statement that names cols
// of table as columns the table does not have (error 1054).
func lacksColumns(ctx context.Context, q querier, table string, cols []string) (bool, error) {
	d := compile.Vitess{}
	quoted := make([]string, len(cols))
	for i, c := range cols {
		quoted[i] = d.Quote(c)
	}
	rows, err := q.QueryContext(ctx, "SELECT "+strings.Join(quoted, ", ")+" FROM "+d.Quote(table)+" WHERE 1 = 0")
	if err == nil {
		err = rows.Close()
	}
	var my *mysql.MySQLError
	if errors.As(err, &my) && my.Number == 1054 {
		return true, nil
	}
	return false, err
}

// checkPlaced reports, for a sharded engine, a store whose tables placed
// with their string (mapping.Colocated) lack mapping.ShardKeyColumn, which
// the compiled SQL reads: a keyspace loaded by an earlier croql, which
// placed translations by their own id. Other engines have nothing to check.
func checkPlaced(ctx context.Context, db *sql.DB, d compile.Dialect) error {
	if _, ok := d.(compile.Sharding); !ok {
		return nil
	}
	col := mapping.ShardKeyColumn
	for _, t := range slices.Sorted(maps.Keys(mapping.Default(schema.New()).Colocated())) {
		missing, err := lacksColumns(ctx, db, t, []string{col})
		if err != nil {
			return fmt.Errorf("store: vitess: reading the placement of %s: %w", t, err)
		}
		if missing {
			return fmt.Errorf("%w: table %s has no column %s (a load by an earlier croql, which placed translations apart from their strings): load the data again", ErrIncomplete, t, col)
		}
	}
	return nil
}
