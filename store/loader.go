package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/croql/croql/ast"
	"github.com/croql/croql/compile"
	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/typecheck"
)

// LoadSQL creates the mapping's tables in db (the statements of DDL) and
// stores p in them: users, files, branches, and the objects of every
// context with their collections. It is NewLoader, Head, Add of every
// object and Finish; see [Loader] for how each engine is fed. The tables
// must not exist yet.
//
// Objects that several parents share (labels, files, branches, the
// translations a duplicate shares with its master) are stored once by id;
// the same id with different contents is an error, as is a string that
// lists one label or translation twice, or a string value the engine
// cannot hold (see Dialect.CheckString).
func LoadSQL(ctx context.Context, db *sql.DB, d compile.Dialect, m *mapping.Mapping, p *schema.Project, opts ...LoadOption) error {
	if db == nil || d == nil || m == nil || p == nil {
		return errors.New("store: Load needs a database, a dialect, a mapping and a project")
	}
	l, err := NewSQLLoader(ctx, db, d, m, opts...)
	if err != nil {
		return err
	}
	if err := l.Head(p); err != nil {
		l.Abort()
		return err
	}
	for _, list := range []any{p.Strings, p.TMSegments, p.GlossaryTerms, p.GlossaryConcepts} {
		v := reflect.ValueOf(list)
		for i := range v.Len() {
			if err := l.Add(v.Index(i).Addr().Interface()); err != nil {
				l.Abort()
				return err
			}
		}
	}
	return l.Finish()
}

// Loader stores a project in a database while it is read: Head with the
// users, files and branches, then Add for each object, then Finish; Abort
// instead of Finish gives up. It holds one connection and one transaction
// for the whole load, and memory in proportion to the ids it has stored
// (to find repeats), not to the rows.
//
// Rows go in multi-row INSERTs of prepared statements, or, when a
// [WithCopy] option gives a bulk copier (package store passes
// a binary COPY FROM for PostgreSQL), through it in batches of rows per
// table. Package compile itself links no database driver. Secondary indexes are built
// after the rows, then the planner's statistics of the loaded tables are
// refreshed (Dialect.Analyze) and nothing else. On PostgreSQL the
// primary keys are added after the rows as well, and the keys, indexes
// and statistics are done table by table on two connections of the pool
// (one when it has none to spare).
type Loader struct {
	ctx  context.Context
	conn *sql.Conn
	tx   *sql.Tx
	d    compile.Dialect
	bulk compile.BulkLoad
	// unlogged: WithUnlogged (the LoadMarker table too).
	unlogged bool
	m        *mapping.Mapping
	ld       *loader
	// db is the pool of conn: PostgreSQL's Finish builds indexes on a
	// second connection too.
	db *sql.DB
	// indexes are created by Finish: keys and indexes, with their table.
	indexes []ddlStmt
	// restore puts the connection's settings back (SQLite's PRAGMAs).
	restore []string
	done    bool
	// marker is the LoadMarker table's name (with WithTablePrefix's prefix).
	marker string
	// head is the project's record (ProjectRecord as JSON), written to
	// the ProjectTable by Finish; nil when Head was not called.
	head []byte
}

// loadSettings sets the connection up for a bulk load (the dialect's
// BulkLoad().Settings) and returns the statements that put it back as it
// was. Finish and Abort restore them.
func loadSettings(ctx context.Context, conn *sql.Conn, settings []compile.Setting) ([]string, error) {
	var restore []string
	for _, st := range settings {
		var old string
		if err := conn.QueryRowContext(ctx, st.Get).Scan(&old); err != nil {
			return nil, err
		}
		if _, err := conn.ExecContext(ctx, st.Set+st.Value); err != nil {
			return nil, err
		}
		restore = append(restore, st.Set+old)
	}
	return restore, nil
}

// restoreSettings puts back the connection settings the load changed.
func (l *Loader) restoreSettings() error {
	for _, stmt := range l.restore {
		if _, err := l.conn.ExecContext(context.WithoutCancel(l.ctx), stmt); err != nil {
			return fmt.Errorf("store: loading: %w", err)
		}
	}
	return nil
}

// CopyFunc copies rows into table (columns cols, in that order) over
// conn, in the transaction the connection has open: a driver's bulk path
// such as PostgreSQL's COPY FROM STDIN.
type CopyFunc func(ctx context.Context, conn *sql.Conn, table string, cols []string, rows [][]any) error

// LoadOption changes how Load and NewLoader store rows.
type LoadOption func(*loadOptions)

type loadOptions struct {
	copy     CopyFunc
	copyWait func(ctx context.Context, conn *sql.Conn) error
	unlogged bool
	prefix   string // WithTablePrefix
}

// WithUnlogged makes the loader create PostgreSQL tables UNLOGGED: they
// skip the write-ahead log, so a load is faster, but a crash of the
// server empties them, and replicas do not get them. For scratch data (package
// store passes it for the scratch schemas of Open); other
// dialects ignore it.
func WithUnlogged() LoadOption {
	return func(o *loadOptions) { o.unlogged = true }
}

// WithCopy makes the loader hand each batch of rows to f instead of an
// INSERT statement. Package store's Load passes it for
// PostgreSQL (pgx's CopyFrom); compile stays free of driver imports.
func WithCopy(f CopyFunc) LoadOption {
	return func(o *loadOptions) { o.copy = f }
}

// WithCopyWait gives the loader a function to call after the last batch
// was handed to the CopyFunc of WithCopy, before the transaction ends
// (commit or rollback): a CopyFunc that sends its batches in the
// background while the loader reads on waits there for them and returns
// the first error.
func WithCopyWait(f func(ctx context.Context, conn *sql.Conn) error) LoadOption {
	return func(o *loadOptions) { o.copyWait = f }
}

// NewSQLLoader creates the mapping's tables in db and starts a load.
func NewSQLLoader(ctx context.Context, db *sql.DB, d compile.Dialect, m *mapping.Mapping, opts ...LoadOption) (*Loader, error) {
	var o loadOptions
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	if db == nil || d == nil || m == nil {
		return nil, errors.New("store: NewLoader needs a database, a dialect and a mapping")
	}
	m = m.Prefixed(o.prefix)
	l, err := m.Layout()
	if err != nil {
		return nil, err
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: loading: %w", err)
	}
	bl := d.BulkLoad()
	tables, indexes := loadDDL(d, m, bl, o.unlogged)
	restore, err := loadSettings(ctx, conn, bl.Settings)
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("store: loading: %w", err)
	}
	tx, err := createTables(ctx, conn, bl, tables)
	if err == nil {
		err = createLookups(ctx, conn, d, m)
	}
	if err != nil {
		for _, stmt := range restore {
			_, _ = conn.ExecContext(context.WithoutCancel(ctx), stmt)
		}
		conn.Close()
		return nil, err
	}
	var q inserter = conn
	if tx != nil {
		q = tx
	}
	ld := newLoader(ctx, q, d, m, l)
	if o.copy != nil {
		cp := o.copy
		ld.copyFrom = func(ctx context.Context, table string, cols []string, rows [][]any) error {
			return cp(ctx, conn, table, cols, rows)
		}
		if wait := o.copyWait; wait != nil {
			ld.copyWait = func() error { return wait(ctx, conn) }
		}
	}
	if bl.RawInserts && ld.copyFrom == nil {
		ld.raw = conn
	}
	return &Loader{ctx: ctx, conn: conn, tx: tx, d: d, bulk: bl, unlogged: o.unlogged, m: m, ld: ld, db: db, indexes: indexes, restore: restore, marker: o.prefix + mapping.LoadMarker}, nil
}

// loadDDL splits the DDL of a load: tables first, indexes after the rows
// (building an index once is much faster than keeping it up to date
// through a bulk load). Where the dialect says so the primary keys come
// after the rows too (the loader has rejected repeated keys already).
func loadDDL(d compile.Dialect, m *mapping.Mapping, bl compile.BulkLoad, unlogged bool) (tables, indexes []ddlStmt) {
	for _, stmt := range ddl(d, m, bl.KeysAfterRows) {
		if !stmt.create {
			indexes = append(indexes, stmt)
			continue
		}
		if unlogged && bl.UnloggedTable != "" && !stmt.vschema {
			stmt.sql = bl.UnloggedTable + strings.TrimPrefix(stmt.sql, "CREATE TABLE ")
		}
		tables = append(tables, stmt)
	}
	return tables, indexes
}

// createTables runs the CREATE TABLEs of a load on conn and begins the
// load's transaction: before them where the dialect's DDL is
// transactional, after them otherwise, and none (nil) where the dialect's
// loads insert without one (compile.BulkLoad.Autocommit).
func createTables(ctx context.Context, conn *sql.Conn, bl compile.BulkLoad, tables []ddlStmt) (*sql.Tx, error) {
	var tx *sql.Tx
	var err error
	if bl.TransactionalDDL {
		if tx, err = conn.BeginTx(ctx, nil); err != nil {
			return nil, fmt.Errorf("store: loading: %w", err)
		}
	}
	for _, stmt := range tables {
		if err := execDDL(ctx, conn, stmt); err != nil {
			if tx != nil {
				_ = tx.Rollback()
			}
			return nil, fmt.Errorf("store: creating tables: %w\n%s", err, stmt.sql)
		}
	}
	if tx == nil && !bl.Autocommit {
		if tx, err = conn.BeginTx(ctx, nil); err != nil {
			return nil, fmt.Errorf("store: loading: %w", err)
		}
	}
	return tx, nil
}

// Head stores the users, files and branches of p (its objects are left
// to Add).
func (l *Loader) Head(p *schema.Project) error {
	head, err := json.Marshal(ProjectRecord(p))
	if err != nil {
		return fmt.Errorf("store: the project's record: %w", err)
	}
	l.head = head
	return l.ld.head(p)
}

// ProjectRecord is the part of p that a load records in the
// ProjectTable: its name, languages (codes and language objects) and
// users, without files, branches or objects. The users are the head's (a
// JSON file's; the NDJSON form has them as objects of their own, which
// the users table holds either way).
func ProjectRecord(p *schema.Project) *schema.Project {
	return &schema.Project{Name: p.Name, SourceLanguage: p.SourceLanguage, TargetLanguages: p.TargetLanguages,
		Users: p.Users, Languages: p.Languages}
}

// ReadProject reads the project's record that a load wrote in the
// ProjectTable (see ProjectRecord); nil, without an error, for a store
// loaded without one (by an earlier croql, or whose table cannot be read
// for a reason other than the database being unavailable).
func ReadProject(ctx context.Context, db *sql.DB, d compile.Dialect) (*schema.Project, error) {
	var head string
	err := db.QueryRowContext(ctx, "SELECT "+d.Quote("head")+" FROM "+d.Quote(mapping.ProjectTable)+" WHERE "+d.Quote("id")+" = 1").Scan(&head)
	if err != nil {
		if c, _ := Classify(err); c == Unavailable || c == Retry || ctx.Err() != nil {
			return nil, fmt.Errorf("store: reading the project's record: %w", err)
		}
		return nil, nil
	}
	var p schema.Project
	if err := json.Unmarshal([]byte(head), &p); err != nil {
		return nil, fmt.Errorf("store: reading the project's record: %w", err)
	}
	return &p, nil
}

// Add stores one object: a *schema.SourceString (with its translations,
// which the translations context reads), *schema.TMSegment,
// *schema.GlossaryTerm or *schema.GlossaryConcept.
func (l *Loader) Add(obj any) error {
	return l.ld.add1(obj)
}

// Rows is the number of rows stored so far (for progress).
func (l *Loader) Rows() int64 { return l.ld.rows }

// Finish writes the rows still buffered, builds the keys and indexes,
// refreshes the statistics of the loaded tables and, last, records the
// load as complete in the table LoadMarker (which [CheckLoaded] reads).
// Where the dialect's DDL is transactional (SQLite) all of it is the
// load's one transaction; elsewhere the rows are committed first, and a
// load that fails after that leaves tables without the LoadMarker row.
func (l *Loader) Finish() error {
	if l.done {
		return errors.New("store: the load is over")
	}
	l.done = true
	defer l.conn.Close()
	err := l.ld.flushAll()
	l.ld.close()
	if err != nil {
		l.rollback()
		_ = l.restoreSettings()
		return err
	}
	if l.bulk.TransactionalDDL {
		err := l.fillKeptTables(l.conn)
		if err == nil {
			err = l.buildIndexes(l.conn)
		}
		if err == nil {
			err = l.ld.refileAll(l.conn)
		}
		if err == nil {
			err = l.fillFiledCounts(l.conn)
		}
		if err == nil {
			err = l.mark(l.conn)
		}
		if err == nil {
			if err = l.tx.Commit(); err != nil {
				err = fmt.Errorf("store: loading: %w", err)
			}
		} else {
			_ = l.tx.Rollback()
		}
		return errors.Join(err, l.restoreSettings())
	}
	if err := l.commit(); err != nil {
		_ = l.restoreSettings()
		return fmt.Errorf("store: loading: %w", err)
	}
	err = l.fillKeptTables(l.conn)
	switch {
	case err != nil:
	case l.bulk.ParallelIndexes:
		err = l.buildParallel()
	default:
		err = l.buildIndexes(l.conn)
	}
	if err == nil {
		err = l.ld.refileAll(l.conn)
	}
	if err == nil {
		err = l.fillFiledCounts(l.conn)
	}
	if err == nil {
		err = l.mark(l.conn)
	}
	if err == nil {
		err = l.awaitTracked()
	}
	return errors.Join(err, l.restoreSettings())
}

// fillKeptTables fills the CountsBy tables (mapping.CountsByTable) and the
// Totals tables (mapping.TotalsTable) from the loaded rows, on conn,
// before their indexes are built. On a sharded engine it does nothing, as
// RefreshCounts: there are no such tables.
func (l *Loader) fillKeptTables(conn *sql.Conn) error {
	if _, sharded := l.d.(compile.Sharding); sharded {
		return nil
	}
	for _, cb := range l.ld.l.CountsByTables() {
		if err := refreshBy(l.ctx, conn, l.d, cb, rows{}, nil); err != nil {
			return err
		}
	}
	for _, ti := range l.ld.l.Tables {
		if ti.Totals != nil {
			if err := refreshTotals(l.ctx, conn, l.d, ti.Totals); err != nil {
				return err
			}
		}
	}
	return nil
}

// fillFiledCounts fills the FiledCounts tables from the loaded rows, on
// conn, once their Filed columns are final (refileAll). On a sharded
// engine it does nothing: there are no such tables.
func (l *Loader) fillFiledCounts(conn *sql.Conn) error {
	if _, sharded := l.d.(compile.Sharding); sharded {
		return nil
	}
	return refreshFiledAll(l.ctx, conn, l.d, l.ld.l)
}

// refile records that the row key of ti, which has a Filed column, is
// listed again.
func (ld *loader) refile(ti *mapping.TableLayout, key int64) {
	if ld.refiled == nil {
		ld.refiled = map[*mapping.TableLayout][]int64{}
	}
	ld.refiled[ti] = append(ld.refiled[ti], key)
}

// refileAll sets the Filed column of the rows listed more than once
// (after the keys are built), on conn: their first lister wrote it, and
// another may come first (a master listed after its duplicate). On a
// sharded engine it does nothing, as RefreshCounts: nothing reads the
// column there.
func (ld *loader) refileAll(conn *sql.Conn) error {
	if _, sharded := ld.d.(compile.Sharding); sharded {
		return nil
	}
	for _, ti := range ld.l.Tables {
		keys := ld.refiled[ti]
		slices.Sort(keys)
		keys = slices.Compact(keys)
		t := ld.d.Quote(ti.Table.Name)
		for len(keys) > 0 {
			n := min(len(keys), max(1, min(500, ld.d.MaxParams())))
			ph := make([]string, n)
			args := make([]any, n)
			for i, k := range keys[:n] {
				ph[i], args[i] = ld.d.Param(i+1, schema.Int), k
			}
			q := "UPDATE " + t + " SET " + ld.d.Quote(ti.Filed.Name) + " = " + FiledSQL(ld.d, ti.Filed, t+"."+ld.d.Quote(ti.Table.Key)) +
				" WHERE " + ld.d.Quote(ti.Table.Key) + " IN (" + strings.Join(ph, ", ") + ")"
			if _, err := conn.ExecContext(ld.ctx, q, args...); err != nil {
				return fmt.Errorf("store: filing the rows of %s: %w", ti.Table.Name, err)
			}
			keys = keys[n:]
		}
	}
	return nil
}

// awaitTracked waits, on a sharded engine, until its router plans with
// the columns of the loaded tables (see awaitColumns).
func (l *Loader) awaitTracked() error {
	if _, ok := l.d.(compile.Sharding); !ok {
		return nil
	}
	return awaitColumns(l.ctx, l.conn, l.m)
}

// buildIndexes builds the keys and indexes left for after the rows and
// refreshes the statistics, one table per statement, on conn.
func (l *Loader) buildIndexes(conn *sql.Conn) error {
	for _, stmt := range l.indexes {
		if _, err := conn.ExecContext(l.ctx, stmt.sql); err != nil && !stmt.optional {
			return fmt.Errorf("store: creating indexes: %w\n%s", err, stmt.sql)
		}
	}
	for _, t := range tableNames(l.d, l.m) {
		if _, err := conn.ExecContext(l.ctx, l.d.Analyze(t)); err != nil {
			return fmt.Errorf("store: analyze %s: %w", t, err)
		}
	}
	return nil
}

// LoadFormat is the layout version a load records in LoadMarker: 3 keeps
// comments' ids, texts and dates; 4 the counts of a string's elements on
// its row (mapping.Table.Counts); 5 the counts of a translation's votes and
// approvals on its row, a string's of its summary elements with
// approvals or a positive rating and of its translations with votes or
// approvals, and the user of all of a string's translations
// (mapping.SoleKey); 6 the string a translation is filed under on its
// row (mapping.Table.Filed) and the counts of a TM segment's records and
// of its used records on its row; 7 the counts of a string's translations
// by language in a table of their own (mapping.CountsBy); 8 the indexes
// of the trigrams of the texts of strings and translations
// (mapping.Table.TextIndexes: SQLite's FTS5 tables, which its queries
// read); 9 the count of a translation's up votes on its row and the
// index of a summary element's string and translation date; 10 how many
// strings each language's translations are filed under
// (mapping.Table.FiledCounts), and the index of a summary element's
// translation date with its string; 11 the counts of a TM segment's
// records by the user who created them (mapping.CountsBy); 12 the TM
// segments' totals (mapping.Table.Totals).
const LoadFormat = 12

// mark creates LoadMarker and records the load in it, after the
// project's record (the ProjectTable).
func (l *Loader) mark(conn *sql.Conn) error {
	d := l.d
	create := "CREATE TABLE "
	if l.unlogged && l.bulk.UnloggedTable != "" {
		create = l.bulk.UnloggedTable
	}
	if err := l.record(conn, create); err != nil {
		return err
	}
	table := create + d.Quote(l.marker) + " (\n  " +
		d.Quote("id") + " " + d.ColumnType(schema.Int) + " NOT NULL,\n  " +
		d.Quote("format") + " " + d.ColumnType(schema.Int) + " NOT NULL,\n  " +
		d.Quote("row_count") + " " + d.ColumnType(schema.Int) + " NOT NULL,\n  " +
		"PRIMARY KEY (" + d.Quote("id") + ")\n)" + d.TableOptions()
	for _, stmt := range append([]ddlStmt{{sql: table}}, shardDDL(d, l.marker, "id")...) {
		if err := execDDL(l.ctx, conn, stmt); err != nil {
			return fmt.Errorf("store: recording the load: %w", err)
		}
	}
	ins := "INSERT INTO " + d.Quote(l.marker) + " (" + d.Quote("id") + ", " + d.Quote("format") + ", " + d.Quote("row_count") + ") VALUES (1, " +
		d.Placeholder(1) + ", " + d.Placeholder(2) + ")"
	if _, err := conn.ExecContext(l.ctx, ins, int64(LoadFormat), l.ld.rows); err != nil {
		return fmt.Errorf("store: recording the load: %w", err)
	}
	return nil
}

// record creates the ProjectTable (create is "CREATE TABLE " or the
// dialect's unlogged form) and writes the project's record in it.
func (l *Loader) record(conn *sql.Conn, create string) error {
	d := l.d
	table := strings.TrimSuffix(l.marker, mapping.LoadMarker) + mapping.ProjectTable
	stmts := []ddlStmt{{sql: create + d.Quote(table) + " (\n  " +
		d.Quote("id") + " " + d.ColumnType(schema.Int) + " NOT NULL,\n  " +
		d.Quote("head") + " " + d.ColumnType(schema.String) + " NOT NULL,\n  " +
		"PRIMARY KEY (" + d.Quote("id") + ")\n)" + d.TableOptions()}}
	for _, stmt := range append(stmts, shardDDL(d, table, "id")...) {
		if err := execDDL(l.ctx, conn, stmt); err != nil {
			return fmt.Errorf("store: recording the project: %w", err)
		}
	}
	head := l.head
	if head == nil {
		head = []byte("{}")
	}
	ins := "INSERT INTO " + d.Quote(table) + " (" + d.Quote("id") + ", " + d.Quote("head") + ") VALUES (1, " + d.Placeholder(1) + ")"
	if _, err := conn.ExecContext(l.ctx, ins, string(head)); err != nil {
		return fmt.Errorf("store: recording the project: %w", err)
	}
	return nil
}

// CheckLoaded reports an error unless db holds a complete load: the
// LoadMarker row that a load writes as its last step. A store without it
// is the leftover of a load that failed, or one still running, and must
// not be served as if it were empty.
func CheckLoaded(ctx context.Context, db *sql.DB, d compile.Dialect) error {
	var format int64
	err := db.QueryRowContext(ctx, "SELECT "+d.Quote("format")+" FROM "+d.Quote(mapping.LoadMarker)+" WHERE "+d.Quote("id")+" = 1").Scan(&format)
	if err != nil {
		return fmt.Errorf("%w: no record of a completed load (table %s): a load failed or is still running; load the data again (%v)", ErrIncomplete, mapping.LoadMarker, err)
	}
	if format != LoadFormat {
		return fmt.Errorf("%w: the load recorded layout %d, this croql reads layout %d: load the data again", ErrIncomplete, format, LoadFormat)
	}
	return checkPlaced(ctx, db, d)
}

// ErrIncomplete is the error of CheckLoaded for a store whose load did not
// complete.
var ErrIncomplete = errors.New("store: the store is incomplete")

// buildParallel builds the keys and indexes of each table and refreshes
// its statistics, table by table, on two connections when the pool has
// one to spare, so that the server builds on two CPUs (BulkLoad's
// ParallelIndexes).
func (l *Loader) buildParallel() error {
	stmts := map[string][]ddlStmt{}
	for _, s := range l.indexes {
		stmts[s.table] = append(stmts[s.table], s)
	}
	// The statements of no table (an extension) first.
	for _, stmt := range stmts[""] {
		if _, err := l.conn.ExecContext(l.ctx, stmt.sql); err != nil && !stmt.optional {
			return fmt.Errorf("store: creating indexes: %w\n%s", err, stmt.sql)
		}
	}
	tables := tableNames(l.d, l.m)
	work := make(chan string, len(tables))
	for _, t := range tables {
		work <- t
	}
	close(work)
	conns := []*sql.Conn{l.conn}
	if st := l.db.Stats(); st.MaxOpenConnections == 0 || st.MaxOpenConnections-st.InUse >= 1 {
		if c, err := l.db.Conn(l.ctx); err == nil {
			defer c.Close()
			conns = append(conns, c)
		}
	}
	errs := make([]error, len(conns))
	var wg sync.WaitGroup
	for i, conn := range conns {
		wg.Go(func() {
			for t := range work {
				if errs[i] != nil {
					continue
				}
				for _, stmt := range stmts[t] {
					if _, err := conn.ExecContext(l.ctx, stmt.sql); err != nil && !stmt.optional {
						errs[i] = fmt.Errorf("store: creating indexes: %w\n%s", err, stmt.sql)
						break
					}
				}
				if errs[i] != nil {
					continue
				}
				if _, err := conn.ExecContext(l.ctx, l.d.Analyze(t)); err != nil {
					errs[i] = fmt.Errorf("store: analyze: %w", err)
				}
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Abort rolls the load back. Where the dialect's DDL is transactional
// (SQLite) the tables go too; elsewhere they stay, empty, without the
// LoadMarker row.
func (l *Loader) Abort() {
	if l.done {
		return
	}
	l.done = true
	l.ld.close()
	l.rollback()
	_ = l.restoreSettings()
	l.conn.Close()
}

// commit commits the load's transaction, if it has one.
func (l *Loader) commit() error {
	if l.tx == nil {
		return nil
	}
	return l.tx.Commit()
}

// rollback rolls the load's transaction back, if it has one.
func (l *Loader) rollback() {
	if l.tx != nil {
		_ = l.tx.Rollback()
	}
}

// loader walks a project and fills batches.
type loader struct {
	ctx context.Context
	// tx takes the INSERTs: the load's transaction, or its connection
	// where the dialect's loads insert without one.
	tx      inserter
	d       compile.Dialect
	m       *mapping.Mapping
	l       *mapping.Layout
	infos   map[*mapping.Table]*loadInfo
	batches map[string]*batch
	order   []*batch
	// seen holds, per keyed table, a hash of each stored row by key.
	seen map[*mapping.Table]map[int64]uint64
	// hash hashes rows (hashRow), with a seed of the load's own.
	hash maphash.Hash
	// rowBufs are rows to reuse: object fills one, add copies it.
	rowBufs [][]any
	// caches of the table of each Go type and of the field indexes of
	// each table's columns per Go type.
	tables   map[reflect.Type]*mapping.Table
	goFields map[fieldsKey]*goFields
	// copyFrom, when set, takes the rows of a batch instead of an INSERT
	// (PostgreSQL's COPY).
	copyFrom func(ctx context.Context, table string, cols []string, rows [][]any) error
	// copyWait, when set, waits for the copies copyFrom started.
	copyWait func() error
	// raw, when set, is the connection whose driver takes the INSERTs
	// directly (SQLite): its statements are prepared and run through
	// sql.Conn.Raw, without database/sql's per-argument conversion (the
	// values are already driver values: nil, bool, int64, float64,
	// string).
	raw  *sql.Conn
	rows int64
	// place places the rows of a sharded engine's tables that go with
	// their string (nil for the other engines).
	place *placement
	// lister is the key of the row whose collection lists, through a
	// join table, the object being stored (listed: there is one), for a
	// table with a Filed column; refiled are the keys of such rows
	// listed again, whose Filed column Finish sets in SQL (the first
	// lister wrote it; another may come first by the rule).
	lister  int64
	listed  bool
	refiled map[*mapping.TableLayout][]int64
}

// loadInfo is what the loader needs of one table.
type loadInfo struct {
	ti    *mapping.TableLayout
	b     *batch
	colls []loadColl
	// key is the index of the table's key among ti.Columns, or -1.
	key int
	// shard: the table holds mapping.ShardKeyColumn after its columns.
	shard bool
	// extra is the number of columns after ti.Columns before the shard
	// key: the Counts columns, and the Filed column.
	extra int
}

type loadColl struct {
	goName string
	child  *mapping.Child
	elem   *mapping.Table
}

// batch accumulates rows of one table for a multi-row INSERT.
type batch struct {
	table string
	cols  []string
	rows  int
	vals  []any
	bytes int
	max   int
	stmt  *sql.Stmt // the statement for max rows, prepared once
	// dstmt is stmt of a raw connection (loader.raw), nv its arguments.
	dstmt driver.Stmt
	nv    []driver.NamedValue
}

// close waits for the copies still running and releases the prepared
// statements.
func (ld *loader) close() {
	if ld.copyWait != nil {
		_ = ld.copyWait()
	}
	for _, b := range ld.order {
		if b.stmt != nil {
			b.stmt.Close()
		}
	}
	if ld.raw == nil {
		return
	}
	_ = ld.raw.Raw(func(any) error {
		for _, b := range ld.order {
			if b.dstmt != nil {
				b.dstmt.Close()
				b.dstmt = nil
			}
		}
		return nil
	})
}

// execRaw inserts the rows of b through the driver of ld.raw.
func (ld *loader) execRaw(b *batch) error {
	return ld.raw.Raw(func(dc any) error {
		st := b.dstmt
		if st == nil || b.rows != b.max {
			cp, ok := dc.(driver.ConnPrepareContext)
			if !ok {
				return fmt.Errorf("store: driver %T cannot prepare with a context", dc)
			}
			var err error
			if st, err = cp.PrepareContext(ld.ctx, ld.insert(b.table, b.cols, b.rows)); err != nil {
				return err
			}
			if b.rows == b.max {
				b.dstmt = st
			} else {
				defer st.Close()
			}
		}
		se, ok := st.(driver.StmtExecContext)
		if !ok {
			return fmt.Errorf("store: driver statement %T cannot run with a context", st)
		}
		nv := b.nv[:0]
		for i, v := range b.vals {
			nv = append(nv, driver.NamedValue{Ordinal: i + 1, Value: v})
		}
		b.nv = nv
		_, err := se.ExecContext(ld.ctx, nv)
		clear(nv) // let the strings go
		return err
	})
}

// inserter is what the loader's INSERTs run on: a *sql.Tx or a
// *sql.Conn.
type inserter interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	PrepareContext(ctx context.Context, query string) (*sql.Stmt, error)
}

func newLoader(ctx context.Context, tx inserter, d compile.Dialect, m *mapping.Mapping, l *mapping.Layout) *loader {
	ld := &loader{ctx: ctx, tx: tx, d: d, m: m, l: l,
		infos: map[*mapping.Table]*loadInfo{}, batches: map[string]*batch{},
		seen:   map[*mapping.Table]map[int64]uint64{},
		tables: map[reflect.Type]*mapping.Table{}, goFields: map[fieldsKey]*goFields{}}
	ld.place = newPlacement(d, m)
	for _, ti := range l.Tables {
		cols := make([]string, len(ti.Columns), len(ti.Columns)+len(ti.Counts)+1)
		li := &loadInfo{ti: ti, key: -1, shard: ld.place.holds(ti.Table.Name)}
		for i, c := range ti.Columns {
			cols[i] = c.Name
			if c.Name == ti.Table.Key && c.GoName == "ID" {
				li.key = i
			}
		}
		for _, c := range ti.Counts {
			cols = append(cols, c.Name)
		}
		if ti.Filed != nil {
			cols = append(cols, ti.Filed.Name)
		}
		li.extra = len(cols) - len(ti.Columns)
		if li.shard {
			cols = append(cols, mapping.ShardKeyColumn)
		}
		li.b = ld.batch(ti.Table.Name, cols)
		ld.infos[ti.Table] = li
		if ti.Table.Key != "" {
			ld.seen[ti.Table] = map[int64]uint64{}
		}
	}
	// Collections of every object sharing a table.
	for _, o := range m.Catalog().Objects {
		t := m.Tables[o.Name]
		li := ld.infos[t]
		if li == nil {
			continue
		}
		for _, f := range o.Fields {
			if f.Type.Kind != schema.Collection {
				continue
			}
			dup := false
			for _, c := range li.colls {
				dup = dup || c.goName == f.GoName
			}
			if !dup {
				li.colls = append(li.colls, loadColl{goName: f.GoName, child: t.Children[f.Name], elem: m.Tables[f.Type.Obj.Name]})
			}
		}
	}
	for _, j := range l.Joins {
		cols := []string{j.From, j.To}
		if ld.place.holds(j.Name) {
			cols = append(cols, mapping.ShardKeyColumn)
		}
		ld.batch(j.Name, cols)
	}
	return ld
}

func (ld *loader) batch(table string, cols []string) *batch {
	if b := ld.batches[table]; b != nil {
		return b
	}
	b := &batch{table: table, cols: cols, max: max(1, min(500, ld.d.MaxParams()/max(1, len(cols))))}
	if n := ld.d.BulkLoad().BatchRows; n > 0 {
		b.max = n
	}
	ld.batches[table] = b
	ld.order = append(ld.order, b)
	return b
}

func (ld *loader) head(p *schema.Project) error {
	ut := ld.m.Tables[ld.m.Catalog().UserObj.Name]
	for i := range p.Users {
		if _, err := ld.object(ut, reflect.ValueOf(&p.Users[i]).Elem(), nil, 0, 0); err != nil {
			return err
		}
	}
	for _, list := range []any{p.Files, p.Branches} {
		v := reflect.ValueOf(list)
		for i := range v.Len() {
			obj := v.Index(i)
			t := ld.tableOfGo(obj.Type())
			if t == nil {
				continue
			}
			if _, err := ld.object(t, obj, nil, 0, 0); err != nil {
				return err
			}
		}
	}
	return nil
}

// add1 stores one object of a context.
func (ld *loader) add1(obj any) error {
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return fmt.Errorf("store: loading: %T is not an object pointer", obj)
	}
	v = v.Elem()
	t := ld.tableOfGo(v.Type())
	if t == nil {
		return fmt.Errorf("store: loading: no table for %s", v.Type())
	}
	ld.place.start(obj)
	if _, err := ld.object(t, v, nil, 0, 0); err != nil {
		return fmt.Errorf("store: loading %s: %w", t.Name, err)
	}
	return nil
}

func (ld *loader) flushAll() error {
	for _, b := range ld.order {
		if err := ld.flush(b); err != nil {
			return err
		}
	}
	if ld.copyWait != nil {
		if err := ld.copyWait(); err != nil {
			return fmt.Errorf("store: copying: %w", err)
		}
	}
	return nil
}

func (ld *loader) tableOfGo(t reflect.Type) *mapping.Table {
	if tt, ok := ld.tables[t]; ok {
		return tt
	}
	tt := ld.findTable(t)
	ld.tables[t] = tt
	return tt
}

func (ld *loader) findTable(t reflect.Type) *mapping.Table {
	if o := objectOfGo(ld.m.Catalog(), t); o != nil {
		return ld.m.Tables[o.Name]
	}
	return nil
}

// goFields is where the Go fields of a table's columns and collections
// are in one Go type (nil for a column the parent fills).
type goFields struct {
	cols, colls [][]int
	// counts are the collections of the table's Counts columns, and
	// countWhere the filter of the elements each counts (nil: all);
	// countOf, for a column of the value every element shares
	// (mapping.CountColumn.Of), that field of the element (nil for a
	// count).
	counts     [][]int
	countWhere [][]goTerm
	countOf    [][]int
}

type fieldsKey struct {
	li *loadInfo
	t  reflect.Type
}

// fieldsOf returns the field indexes of v's type for li, computed once.
func (ld *loader) fieldsOf(li *loadInfo, v reflect.Value) (*goFields, error) {
	k := fieldsKey{li, v.Type()}
	if f, ok := ld.goFields[k]; ok {
		return f, nil
	}
	cols, err := goFieldIndexes(li.ti.Columns, v.Type())
	if err != nil {
		return nil, err
	}
	f := &goFields{cols: cols, colls: make([][]int, len(li.colls))}
	for i, lc := range li.colls {
		sf, ok := v.Type().FieldByName(lc.goName)
		if !ok {
			return nil, fmt.Errorf("store: %s has no Go field %s", v.Type(), lc.goName)
		}
		f.colls[i] = sf.Index
	}
	if err := f.countFields(li.ti.Counts, v.Type()); err != nil {
		return nil, err
	}
	ld.goFields[k] = f
	return f, nil
}

// countFields finds the Go fields of the Counts columns cs in t.
func (f *goFields) countFields(cs []mapping.CountColumn, t reflect.Type) error {
	for _, c := range cs {
		sf, ok := t.FieldByName(c.Field.GoName)
		if !ok || sf.Type.Kind() != reflect.Slice {
			return fmt.Errorf("store: %s has no Go slice field %s", t, c.Field.GoName)
		}
		var of []int
		if c.Of != nil {
			et := sf.Type.Elem()
			if et.Kind() != reflect.Struct {
				return fmt.Errorf("store: %s is not a struct", et)
			}
			of, ok = goFieldIndex(et, c.Of.GoName)
			if !ok {
				return fmt.Errorf("store: %s has no Go integer field %s", et, c.Of.GoName)
			}
		}
		f.countOf = append(f.countOf, of)
		var where []goTerm
		for _, t := range c.Where {
			g, err := goTermOf(t, sf.Type.Elem())
			if err != nil {
				return err
			}
			where = append(where, g)
		}
		f.counts, f.countWhere = append(f.counts, sf.Index), append(f.countWhere, where)
	}
	return nil
}

// goTermOf finds the Go field of t, a term of a count's filter, in et,
// the Go type of the elements counted.
func goTermOf(t mapping.CountTerm, et reflect.Type) (goTerm, error) {
	fits, what := func(k reflect.Kind) bool { return k == reflect.Bool }, "bool"
	switch {
	case t.Equals != "":
		fits, what = func(k reflect.Kind) bool { return k == reflect.String }, "string"
	case t.Of != nil:
		fits, what = func(k reflect.Kind) bool { return k == reflect.Slice }, "slice"
	case t.Op != ast.OpInvalid:
		fits, what = func(k reflect.Kind) bool { return k >= reflect.Int && k <= reflect.Int64 }, "int"
	}
	if et.Kind() == reflect.Struct {
		if wf, ok := et.FieldByName(t.Field.GoName); ok && fits(wf.Type.Kind()) {
			return goTerm{idx: wf.Index, term: t}, nil
		}
	}
	return goTerm{}, fmt.Errorf("store: %s has no Go %s field %s", et, what, t.Field.GoName)
}

// goTerm is a term of a count's filter (mapping.CountTerm): the Go field
// at idx is true (a bool), holds the term's Equals (a string), or its
// value (an int64) or length (a slice) passes the term's comparison;
// negated when the term is Not.
type goTerm struct {
	idx  []int
	term mapping.CountTerm
}

// holds reports whether t holds of the element e.
func (t goTerm) holds(e reflect.Value) bool {
	v := fieldAt(e, t.idx)
	switch {
	case t.term.Equals != "":
		return (v.String() == t.term.Equals) != t.term.Not
	case t.term.Op == ast.OpInvalid:
		return v.Bool() != t.term.Not
	case t.term.Of != nil:
		return t.term.Holds(int64(v.Len())) != t.term.Not
	}
	return t.term.Holds(v.Int()) != t.term.Not
}

// goFieldIndex is the index of t's integer field name.
func goFieldIndex(t reflect.Type, name string) ([]int, bool) {
	sf, ok := t.FieldByName(name)
	if !ok || sf.Type.Kind() != reflect.Int64 {
		return nil, false
	}
	return sf.Index, true
}

// countInto writes the Counts columns of v into row: the length of each
// collection, or how many of its elements pass its filter, or the value
// of a field every element shares (nil for none or several).
func (f *goFields) countInto(v reflect.Value, row []any) {
	for i, idx := range f.counts {
		sv := fieldAt(v, idx)
		if of := f.countOf[i]; of != nil {
			row[i] = sole(sv, of)
			continue
		}
		n := int64(sv.Len())
		if w := f.countWhere[i]; w != nil {
			n = 0
			for j := range sv.Len() {
				if passes(sv.Index(j), w) {
					n++
				}
			}
		}
		row[i] = n
	}
}

// sole is the value of the integer field at of that every element of
// the slice sv holds, nil when they differ or there are none.
func sole(sv reflect.Value, of []int) any {
	if sv.Len() == 0 {
		return nil
	}
	first := fieldAt(sv.Index(0), of).Int()
	for j := 1; j < sv.Len(); j++ {
		if fieldAt(sv.Index(j), of).Int() != first {
			return nil
		}
	}
	return first
}

// passes reports whether every term of w holds of the element e.
func passes(e reflect.Value, w []goTerm) bool {
	for _, t := range w {
		if !t.holds(e) {
			return false
		}
	}
	return true
}

func fieldAt(v reflect.Value, idx []int) reflect.Value {
	if len(idx) == 1 {
		return v.Field(idx[0])
	}
	return v.FieldByIndex(idx)
}

// object stores v (a struct) in table t, with fk holding the parent's key
// (fkVal) when t is an element table, and returns v's key. A keyed object
// stored before is not stored again.
func (ld *loader) object(t *mapping.Table, v reflect.Value, fk *string, fkVal, ord int64) (int64, error) {
	li := ld.infos[t]
	if li == nil {
		return 0, fmt.Errorf("store: no table for %s", v.Type())
	}
	ti := li.ti
	lister, listed := ld.lister, ld.listed
	ld.listed = false
	gf, err := ld.fieldsOf(li, v)
	if err != nil {
		return 0, err
	}
	row := ld.rowBuf(len(ti.Columns) + li.extra + 1)[:len(ti.Columns)+li.extra]
	defer ld.putRowBuf(row)
	gf.countInto(v, row[len(ti.Columns):])
	if ti.Filed != nil && listed {
		row[len(row)-1] = lister
	}
	fkName := ""
	if fk != nil {
		fkName = *fk
	}
	ref := func(rv reflect.Value) (int64, error) {
		rt := ld.tableOfGo(rv.Type())
		if rt == nil {
			return 0, fmt.Errorf("store: no table for %s", rv.Type())
		}
		return ld.object(rt, rv, nil, 0, 0)
	}
	if err := encodeRow(ld.d, ti.Columns, gf.cols, v, row, fkName, Owner{Key: fkVal, Ordinal: ord}, ref); err != nil {
		return 0, err
	}
	var key int64
	if ki := li.key; ki >= 0 {
		key, _ = row[ki].(int64)
	}
	if t.Key != "" {
		h := ld.hashRow(row[:len(ti.Columns)], ti.Columns)
		if prev, ok := ld.seen[t][key]; ok {
			if prev != h {
				return 0, fmt.Errorf("store: %s %d appears twice with different contents", strings.ToLower(v.Type().Name()), key)
			}
			if ti.Filed != nil && listed {
				ld.refile(ti, key)
			}
			return key, ld.place.again(li.shard, v, key)
		}
		ld.seen[t][key] = h
	}
	if li.shard {
		row = append(row, ld.place.stored(v, key, li.key >= 0))
	}
	if err := ld.add(li.b, row); err != nil {
		return 0, err
	}
	return key, ld.children(li, gf, v, key)
}

// children stores the elements of v's collections (v's key is key): an
// element table's rows with v's key as their foreign key, a join table's
// elements with a link from v.
func (ld *loader) children(li *loadInfo, gf *goFields, v reflect.Value, key int64) error {
	// The links of this object, to reject one listed twice: a keyed
	// object is walked once (stored before, object returns first), so a
	// repeated row of a join table can only come from the same list.
	var linked links
	for ci, lc := range li.colls {
		if lc.child == nil || lc.elem == nil {
			continue
		}
		sv := fieldAt(v, gf.colls[ci])
		for j := range sv.Len() {
			ev := sv.Index(j)
			if lc.child.Through == "" {
				if _, err := ld.object(lc.elem, ev, &lc.child.FK, key, int64(j)); err != nil {
					return err
				}
				continue
			}
			ld.lister, ld.listed = key, true
			ek, err := ld.object(lc.elem, ev, nil, 0, 0)
			ld.listed = false
			if err != nil {
				return err
			}
			if linked.repeat(link{lc.child.Through, ek}) {
				return fmt.Errorf("store: %s %d lists %s %d twice", strings.ToLower(v.Type().Name()), key, strings.ToLower(ev.Type().Name()), ek)
			}
			pair := [3]any{key, ek, ld.place.shardKey()}
			jb := ld.batches[lc.child.Through]
			if err := ld.add(jb, pair[:len(jb.cols)]); err != nil {
				return err
			}
		}
	}
	return nil
}

// scalar converts a Go field value into a database value (nil for a nil
// pointer).
func scalar(d compile.Dialect, fv reflect.Value) (any, error) {
	if fv.Kind() == reflect.Pointer {
		if fv.IsNil() {
			return nil, nil
		}
		fv = fv.Elem()
	}
	switch fv.Kind() {
	case reflect.Bool:
		return fv.Bool(), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return fv.Int(), nil
	case reflect.Float32, reflect.Float64:
		f := fv.Float()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("%w: %v", compile.ErrUnrepresentable, f)
		}
		return f, nil
	case reflect.String:
		s := fv.String()
		if err := d.CheckString(s); err != nil {
			return nil, err
		}
		return s, nil
	}
	return nil, fmt.Errorf("store: cannot store a %s", fv.Type())
}

// link is a row of a join table as one object lists it: the join
// table and the element's key.
type link struct {
	through string
	key     int64
}

// links is a set of links, a list while it is short.
type links struct {
	list []link
	set  map[link]bool
}

// repeat adds lk and tells whether it was there already.
func (s *links) repeat(lk link) bool {
	if s.set != nil {
		if s.set[lk] {
			return true
		}
		s.set[lk] = true
		return false
	}
	if slices.Contains(s.list, lk) {
		return true
	}
	s.list = append(s.list, lk)
	if len(s.list) > 32 {
		s.set = make(map[link]bool, 2*len(s.list))
		for _, x := range s.list {
			s.set[x] = true
		}
	}
	return false
}

// rowBuf returns an empty row of n columns, reused.
func (ld *loader) rowBuf(n int) []any {
	if k := len(ld.rowBufs); k > 0 {
		row := ld.rowBufs[k-1]
		ld.rowBufs = ld.rowBufs[:k-1]
		if cap(row) >= n {
			return row[:n]
		}
	}
	return make([]any, n)
}

// putRowBuf gives a row back for reuse (add copied its values).
func (ld *loader) putRowBuf(row []any) {
	clear(row)
	ld.rowBufs = append(ld.rowBufs, row)
}

// hashRow hashes the values of a row except its foreign keys.
func (ld *loader) hashRow(row []any, cols []mapping.Column) uint64 {
	h := &ld.hash
	h.Reset()
	var buf [9]byte
	for i, v := range row {
		if cols[i].GoName == "" {
			continue
		}
		switch x := v.(type) {
		case nil:
			h.WriteByte(0)
		case bool:
			buf[0], buf[1] = 1, 0
			if x {
				buf[1] = 1
			}
			h.Write(buf[:2])
		case int64:
			buf[0] = 2
			binary.LittleEndian.PutUint64(buf[1:], uint64(x))
			h.Write(buf[:])
		case float64:
			buf[0] = 3
			binary.LittleEndian.PutUint64(buf[1:], math.Float64bits(x))
			h.Write(buf[:])
		case string:
			buf[0] = 4
			binary.LittleEndian.PutUint64(buf[1:], uint64(len(x)))
			h.Write(buf[:])
			h.WriteString(x)
		}
	}
	return h.Sum64()
}

// add appends a row to b, flushing b when it is full.
func (ld *loader) add(b *batch, row []any) error {
	b.vals = append(b.vals, row...)
	b.rows++
	ld.rows++
	for _, v := range row {
		if s, ok := v.(string); ok {
			b.bytes += len(s)
		}
	}
	if b.rows >= b.max || b.bytes >= 4<<20 {
		return ld.flush(b)
	}
	return nil
}

// flush inserts the rows of b.
func (ld *loader) flush(b *batch) error {
	if b.rows == 0 {
		return nil
	}
	var err error
	if ld.copyFrom != nil {
		rows := make([][]any, b.rows)
		n := len(b.cols)
		for i := range rows {
			rows[i] = b.vals[i*n : (i+1)*n : (i+1)*n]
		}
		if err := ld.copyFrom(ld.ctx, b.table, b.cols, rows); err != nil {
			return fmt.Errorf("store: copying into %s: %w", b.table, err)
		}
		b.vals, b.rows, b.bytes = b.vals[:0], 0, 0
		return nil
	}
	if ld.raw != nil {
		err = ld.execRaw(b)
	} else if b.rows == b.max {
		if b.stmt == nil {
			if b.stmt, err = ld.tx.PrepareContext(ld.ctx, ld.insert(b.table, b.cols, b.rows)); err != nil {
				return fmt.Errorf("store: inserting into %s: %w", b.table, err)
			}
		}
		_, err = b.stmt.ExecContext(ld.ctx, b.vals...)
	} else {
		_, err = ld.tx.ExecContext(ld.ctx, ld.insert(b.table, b.cols, b.rows), b.vals...)
	}
	if err != nil {
		return fmt.Errorf("store: inserting into %s: %w", b.table, err)
	}
	b.vals, b.rows, b.bytes = b.vals[:0], 0, 0
	return nil
}

// insert builds INSERT INTO table (cols) VALUES (...), ... for n rows.
func (ld *loader) insert(table string, cols []string, n int) string {
	return compile.InsertSQL(ld.d, table, cols, n)
}

// Run compiles q and runs it on db, returning the keys (ids) of the
// matching root objects in ascending order.
//
// On a sharded engine ([compile.Sharding]) a query the engine refuses, or that
// the compiler will not send there ([compile.ErrSharded]), is answered by the
// coordinator (see [Exec]).
func Run(ctx context.Context, db *sql.DB, d compile.Dialect, m *mapping.Mapping, q *typecheck.Query) ([]int64, error) {
	ids, _, err := Exec(ctx, db, d, m, q, compile.WholeSet, 0)
	return ids, err
}

// RunSQL runs the compiled query s's Select on db, under ctx: the driver
// cancels the statement when ctx is done. When ctx has a deadline, the
// server is told too, so that it stops the statement on its own even if
// the cancellation does not reach it: on PostgreSQL the statement runs in
// a read-only transaction with statement_timeout set (SET LOCAL) to the
// time left; on MariaDB the statement runs on a connection whose
// max_statement_time is the time left (reset afterwards), and on MySQL the
// SELECT carries the MAX_EXECUTION_TIME optimizer hint.
//
// On a sharded engine, a statement the engine refuses (a shape vtgate
// does not plan) is answered by the coordinator instead (see [Exec]).
func RunSQL(ctx context.Context, db *sql.DB, s *compile.SQL) ([]int64, error) {
	ids, _, err := execSQL(ctx, db, s, 0)
	return ids, err
}

// RunSelect runs query, a SELECT whose first column is an int64 id,
// with args bound, and returns the ids in order. A deadline on ctx
// becomes the engine's statement timeout (as in Run), so the server stops
// the statement too. It is what Run executes after compiling; tests and
// tools use it for statements of their own.
func RunSelect(ctx context.Context, db *sql.DB, d compile.Dialect, query string, args []any) ([]int64, error) {
	return runSelect(ctx, db, d, query, args)
}

// runSelect runs query, a SELECT of ids in dialect d, under ctx (see Run).
func runSelect(ctx context.Context, db *sql.DB, d compile.Dialect, query string, args []any) ([]int64, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("store: running query: %w", err)
	}
	deadline, limited := ctx.Deadline()
	if !limited {
		rows, err := db.QueryContext(ctx, query, args...)
		if err != nil {
			return nil, fmt.Errorf("store: running query: %w", err)
		}
		return scanIDs(rows)
	}
	return runTimed(ctx, db, d, query, args, time.Until(deadline))
}

// runTimed runs query in a read-only transaction whose statements the
// server stops at ctx's deadline (TimedTx and the dialect's TimedSelect).
func runTimed(ctx context.Context, db *sql.DB, d compile.Dialect, query string, args []any, left time.Duration) (ids []int64, err error) {
	err = TimedTx(ctx, db, d, true, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, d.TimedSelect(query, left), args...)
		if err != nil {
			return fmt.Errorf("store: running query: %w", err)
		}
		ids, err = scanIDs(rows)
		return err
	})
	return ids, err
}

// scanIDs reads the ids of rows and closes them.
func scanIDs(rows *sql.Rows) ([]int64, error) {
	defer rows.Close()
	ids := []int64{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("store: reading ids: %w", err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: reading ids: %w", err)
	}
	return ids, nil
}
