package store

import (
	"context"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"

	"github.com/croql/croql/compile"
	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
)

// DDL returns the statements that create the mapping's tables in dialect
// d, with the indexes the compiled queries use: the key, every foreign key
// of an element table, both columns of a join table, every reference
// column (file_id), and the extra indexes of the mapping (identifier,
// added, updated, language, ...). Text columns compare by code point
// (COLLATE "C" in PostgreSQL, utf8mb4_nopad_bin in MySQL); booleans,
// integers and datetimes (Unix seconds) are NOT NULL unless the field is
// nullable. It returns nil when the mapping does not Check.
//
// There are no FOREIGN KEY constraints: the loader keeps the references
// consistent, and constraints would only slow bulk loading.
func DDL(d compile.Dialect, m *mapping.Mapping) []string {
	stmts := ddl(d, m, false)
	if stmts == nil {
		return nil
	}
	out := make([]string, len(stmts))
	for i, s := range stmts {
		out[i] = s.sql
	}
	return out
}

// tableNames are the tables the DDL of m creates in dialect d: the
// mapping's, and on an engine that keeps counts (not a sharded one) the
// CountsBy tables.
func tableNames(d compile.Dialect, m *mapping.Mapping) []string {
	if _, sharded := d.(compile.Sharding); sharded {
		return m.TableNames()
	}
	return m.TablesWithCounts()
}

// ddlStmt is one statement of the DDL and the table it is about.
type ddlStmt struct {
	table, sql string
	// create: a CREATE TABLE (else an index or a key, for after the rows).
	create bool
	// vschema: a statement that places table on the shards (Vitess's
	// ALTER VSCHEMA), which execDDL waits for.
	vschema bool
	// optional: a statement whose failure the load ignores (PostgreSQL's
	// pg_trgm extension and its indexes, which a server may not allow:
	// the compiled queries are exact without them).
	optional bool
}

// execDDL runs stmt on q, and for a statement that places a table on the
// shards waits until vtgate shows it (see alterVSchema).
func execDDL(ctx context.Context, q querier, stmt ddlStmt) error {
	if stmt.vschema {
		return alterVSchema(ctx, q, stmt.sql, stmt.table, true)
	}
	_, err := q.ExecContext(ctx, stmt.sql)
	return err
}

// ddl is DDL with the table of each statement. keysAfter leaves the
// PRIMARY KEY out of each CREATE TABLE and adds it after the tables, as
// ALTER TABLE ... ADD PRIMARY KEY, before the indexes (for PostgreSQL's
// bulk load: building the key once after the rows is cheaper than keeping
// it up to date; the constraint and its index are the same, named
// <table>_pkey).
func ddl(d compile.Dialect, m *mapping.Mapping, keysAfter bool) []ddlStmt {
	l, err := m.Layout()
	if err != nil {
		return nil
	}
	w := &ddlWriter{d: d, keysAfter: keysAfter, shard: shardKeys(d, m)}
	for _, ti := range l.Tables {
		w.table(ti)
	}
	for _, j := range l.Joins {
		w.join(j)
	}
	if _, sharded := d.(compile.Sharding); !sharded {
		// A sharded engine reads no kept count: it has no such table.
		for _, cb := range l.CountsByTables() {
			w.countsBy(cb)
		}
		for _, ti := range l.Tables {
			if ti.Filed != nil && ti.Filed.Counts != nil {
				w.filedCounts(ti.Filed.Counts)
			}
			if ti.Totals != nil {
				w.totals(ti.Totals)
			}
		}
	}
	w.out = append(w.out, w.keys...)
	return append(w.out, w.idx...)
}

// ddlWriter gathers the statements of the DDL: the CREATE TABLEs (out),
// the keys added after the rows (keys) and the indexes (idx).
type ddlWriter struct {
	d              compile.Dialect
	keysAfter      bool
	out, keys, idx []ddlStmt
	// shard is the shard column of each table for a Sharding dialect
	// (see shardKeys), nil for the others.
	shard map[string]string
	// trgm: the statement that creates PostgreSQL's pg_trgm was added.
	trgm bool
}

// primaryKey is the PRIMARY KEY clause of table's CREATE TABLE, or ""
// when the key is added after the rows.
func (w *ddlWriter) primaryKey(table string, cols ...string) string {
	q := make([]string, len(cols))
	for i, c := range cols {
		q[i] = w.d.Quote(c)
	}
	return w.primaryKeyOf(table, q)
}

// primaryKeyOf is primaryKey of the column definitions q (quoted, maybe
// with a prefix length).
func (w *ddlWriter) primaryKeyOf(table string, q []string) string {
	pk := "PRIMARY KEY (" + strings.Join(q, ", ") + ")"
	if w.keysAfter {
		w.keys = append(w.keys, ddlStmt{table: table, sql: "ALTER TABLE " + w.d.Quote(table) + " ADD " + pk})
		return ""
	}
	return pk
}

func (w *ddlWriter) index(table string, unique bool, cols []string, kinds map[string]schema.Kind) {
	name := indexName(table, cols)
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = w.d.IndexColumn(c, kinds[c])
	}
	kw := "CREATE INDEX "
	if unique {
		kw = "CREATE UNIQUE INDEX "
	}
	w.idx = append(w.idx, ddlStmt{table: table, sql: kw + w.d.Quote(name) + " ON " + w.d.Quote(table) + " (" + strings.Join(parts, ", ") + ")"})
}

// indexName is the name of the index of table on cols:
// <table>_<cols>_idx, and where that is longer than the 63 bytes every
// engine takes, its first 50 bytes, a hash of the whole name and _idx
// (two long names that start alike, as the counts of a string with a
// table prefix do, stay apart).
func indexName(table string, cols []string) string {
	name := table + "_" + strings.Join(cols, "_") + "_idx"
	if len(name) <= 63 {
		return name
	}
	h := fnv.New32a()
	h.Write([]byte(name))
	return fmt.Sprintf("%s_%08x_idx", name[:50], h.Sum32())
}

// createTable adds the CREATE TABLE of table with the column definitions
// defs (its primary key among them, unless it comes after the rows).
func (w *ddlWriter) createTable(table string, defs []string) {
	w.out = append(w.out, ddlStmt{table: table, create: true, sql: "CREATE TABLE " + w.d.Quote(table) + " (\n  " + strings.Join(defs, ",\n  ") + "\n)" + w.d.TableOptions()})
}

// create adds the CREATE TABLE of table with the column definitions defs
// and its primary key pkey, and its placement on a sharded engine.
func (w *ddlWriter) create(table string, defs []string, pkey []string, shard string) {
	if len(pkey) > 0 {
		if pk := w.primaryKey(table, pkey...); pk != "" {
			defs = append(defs, pk)
		}
	}
	w.createTable(table, defs)
	w.out = append(w.out, shardDDL(w.d, table, shard)...)
}

// table adds the statements of one table of the layout.
func (w *ddlWriter) table(ti *mapping.TableLayout) {
	t := ti.Table
	var defs []string
	kinds := map[string]schema.Kind{}
	for _, c := range ti.Columns {
		kinds[c.Name] = c.Kind
		def := w.d.Quote(c.Name) + " " + w.d.ColumnType(c.Kind)
		if !ti.Nullable(c) {
			def += " NOT NULL"
		}
		defs = append(defs, def)
	}
	for _, c := range ti.Counts {
		if c.Of != nil {
			// The value every element shares: NULL for none or several.
			defs = append(defs, w.d.Quote(c.Name)+" "+w.d.ColumnType(schema.Int))
			continue
		}
		defs = append(defs, w.d.Quote(c.Name)+" "+w.d.ColumnType(schema.Int)+" NOT NULL DEFAULT 0")
	}
	if f := ti.Filed; f != nil {
		// The row it is filed under: NULL until it is listed.
		defs = append(defs, w.d.Quote(f.Name)+" "+w.d.ColumnType(schema.Int))
	}
	defs = append(defs, w.shardDef(t.Name)...)
	w.create(t.Name, defs, ti.PKey, w.shard[t.Name])
	var done [][]string
	add := func(unique bool, cols ...string) {
		if len(cols) == 0 || (len(cols) == 1 && cols[0] == t.Key) || slices.ContainsFunc(done, func(x []string) bool { return slices.Equal(x, cols) }) {
			return
		}
		done = append(done, cols)
		w.index(t.Name, unique, cols, kinds)
	}
	for _, fk := range ti.FKs {
		// An extra index led by the foreign key serves its lookups too.
		if slices.ContainsFunc(t.Indexes, func(x []string) bool {
			x = ownerFK(x, ti.FKs)
			return len(x) > 1 && x[0] == fk
		}) {
			continue
		}
		add(false, fk)
	}
	for _, r := range ti.Refs {
		add(false, r)
	}
	for _, u := range t.Unique {
		add(true, u...)
	}
	// An extra index may hold a count kept on the row, or the Filed
	// column.
	for _, c := range ti.Counts {
		kinds[c.Name] = schema.Int
	}
	if ti.Filed != nil {
		kinds[ti.Filed.Name] = schema.Int
	}
	for _, x := range t.Indexes {
		add(false, ownerFK(x, ti.FKs)...)
	}
	// A count kept on the row (mapping.Table.Counts) is compared with a
	// constant: `count of comments > 0` over the index is a range of it;
	// the user of every translation, with a user: the few strings whose
	// translations are all by that user are a range of its index (see
	// countIndex).
	for _, c := range ti.Counts {
		add(false, countIndex(ti, c)...)
	}
	for _, f := range t.TextIndexes {
		if col := t.Columns[f]; col != "" && t.Key != "" {
			w.textIndex(t, col)
		}
	}
}

// textIndex adds the index of the trigrams of column col of table t
// (mapping.Table.TextIndexes): on SQLite an FTS5 table of the trigram
// tokenizer over t's rows (external content: the index alone), filled
// from the rows and kept by triggers on t's inserts, deletes and updates
// of the key or col; on PostgreSQL a GIN index of pg_trgm, after the
// extension, both optional (a server that does not allow them answers
// the same queries without). Other engines have none.
func (w *ddlWriter) textIndex(t *mapping.Table, col string) {
	q := w.d.Quote
	switch w.d.(type) {
	case compile.SQLite:
		name := mapping.TrigramTable(t.Name, col)
		fts, tab, key, c := q(name), q(t.Name), q(t.Key), q(col)
		add := func(sql string) { w.idx = append(w.idx, ddlStmt{table: t.Name, sql: sql}) }
		add("CREATE VIRTUAL TABLE " + fts + " USING fts5(" + c + ", content='" + t.Name + "', content_rowid='" + t.Key + "', tokenize='trigram case_sensitive 1')")
		add("INSERT INTO " + fts + "(" + fts + ") VALUES ('rebuild')")
		del := "INSERT INTO " + fts + "(" + fts + ", rowid, " + c + ") VALUES ('delete', old." + key + ", old." + c + ");"
		ins := "INSERT INTO " + fts + "(rowid, " + c + ") VALUES (new." + key + ", new." + c + ");"
		add("CREATE TRIGGER " + q(name+"_ai") + " AFTER INSERT ON " + tab + " BEGIN " + ins + " END")
		add("CREATE TRIGGER " + q(name+"_ad") + " AFTER DELETE ON " + tab + " BEGIN " + del + " END")
		add("CREATE TRIGGER " + q(name+"_au") + " AFTER UPDATE OF " + key + ", " + c + " ON " + tab + " BEGIN " + del + " " + ins + " END")
	case compile.Postgres:
		if !w.trgm {
			// Once, before the indexes (buildParallel runs the statements
			// of no table first).
			w.trgm = true
			w.idx = append(w.idx, ddlStmt{sql: "CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public", optional: true})
		}
		w.idx = append(w.idx, ddlStmt{table: t.Name, optional: true,
			sql: "CREATE INDEX " + q(indexName(t.Name, []string{col, "trgm"})) + " ON " + q(t.Name) + " USING gin (" + q(col) + " public.gin_trgm_ops)"})
	}
}

// countIndex is the column list of the index of the Counts column c of
// ti: c alone; for the user of every element (mapping.SoleKey) c and the
// key, so that the rows of one user are read in key order (a page of
// "every translation is by X" stops after its rows, on PostgreSQL also
// in a prepared statement's generic plan); and for the count of a
// collection whose elements' user the row keeps too, that user after it,
// so that "some element is not by X" (the count above zero and the user
// not X) reads the index alone.
func countIndex(ti *mapping.TableLayout, c mapping.CountColumn) []string {
	if c.Of != nil {
		return []string{c.Name, ti.Table.Key}
	}
	if len(c.Where) == 0 {
		for _, u := range ti.Counts {
			if u.Of != nil && u.Field == c.Field {
				return []string{c.Name, u.Name}
			}
		}
	}
	return []string{c.Name}
}

// countsBy adds the statements of a CountsBy table: the owner's key and
// the value, its primary key, then the counts; and an index of the value
// and every count, which a count of the owners with some element of one
// value (where one of the counts is above zero) reads alone.
func (w *ddlWriter) countsBy(cb *mapping.CountsByTable) {
	kinds := map[string]schema.Kind{cb.Key: schema.Int, cb.ByColumn: cb.ByKind}
	defs := []string{
		w.d.Quote(cb.Key) + " " + w.d.ColumnType(schema.Int) + " NOT NULL",
		w.d.Quote(cb.ByColumn) + " " + w.d.ColumnType(cb.ByKind) + " NOT NULL",
	}
	idx := []string{cb.ByColumn}
	for _, c := range cb.Counts {
		defs = append(defs, w.d.Quote(c.Name)+" "+w.d.ColumnType(schema.Int)+" NOT NULL DEFAULT 0")
		kinds[c.Name] = schema.Int
		idx = append(idx, c.Name)
	}
	if pk := w.primaryKeyOf(cb.Name, []string{w.d.IndexColumn(cb.Key, schema.Int), w.d.IndexColumn(cb.ByColumn, cb.ByKind)}); pk != "" {
		defs = append(defs, pk)
	}
	w.createTable(cb.Name, defs)
	w.index(cb.Name, false, idx, kinds)
}

// filedCounts adds the statements of a FiledCounts table: the value,
// its primary key, and the count.
func (w *ddlWriter) filedCounts(fc *mapping.FiledCountsTable) {
	defs := []string{
		w.d.Quote(fc.ByColumn) + " " + w.d.ColumnType(fc.ByKind) + " NOT NULL",
		w.d.Quote(fc.Count) + " " + w.d.ColumnType(schema.Int) + " NOT NULL DEFAULT 0",
	}
	if pk := w.primaryKeyOf(fc.Name, []string{w.d.IndexColumn(fc.ByColumn, fc.ByKind)}); pk != "" {
		defs = append(defs, pk)
	}
	w.createTable(fc.Name, defs)
}

// totals adds the statements of a Totals table: one row of counts, its
// key 1.
func (w *ddlWriter) totals(tt *mapping.TotalsTable) {
	defs := []string{
		w.d.Quote(mapping.TotalsKey) + " " + w.d.ColumnType(schema.Int) + " NOT NULL",
		w.d.Quote(mapping.TotalsRows) + " " + w.d.ColumnType(schema.Int) + " NOT NULL DEFAULT 0",
	}
	for _, c := range tt.Columns {
		defs = append(defs, w.d.Quote(c)+" "+w.d.ColumnType(schema.Int)+" NOT NULL DEFAULT 0")
	}
	if pk := w.primaryKeyOf(tt.Name, []string{w.d.IndexColumn(mapping.TotalsKey, schema.Int)}); pk != "" {
		defs = append(defs, pk)
	}
	w.createTable(tt.Name, defs)
}

// join adds the statements of a join table.
func (w *ddlWriter) join(j mapping.Join) {
	defs := []string{
		w.d.Quote(j.From) + " " + w.d.ColumnType(schema.Int) + " NOT NULL",
		w.d.Quote(j.To) + " " + w.d.ColumnType(schema.Int) + " NOT NULL",
	}
	defs = append(defs, w.shardDef(j.Name)...)
	w.create(j.Name, defs, []string{j.From, j.To}, w.shard[j.Name])
	w.index(j.Name, false, []string{j.To}, nil)
}

// shardDDL is the statements that place table by column, for a Sharding
// dialect (none for the others).
func shardDDL(d compile.Dialect, table, column string) []ddlStmt {
	s, ok := d.(compile.Sharding)
	if !ok {
		return nil
	}
	var out []ddlStmt
	for _, stmt := range s.ShardTable(table, column) {
		out = append(out, ddlStmt{table: table, create: true, vschema: true, sql: stmt})
	}
	return out
}

// WithTablePrefix makes the loader create and fill the mapping's tables,
// and its LoadMarker, under names starting with prefix: a load built
// beside the tables it replaces, in the same database, for an engine that
// cannot move tables between databases in one step (package store
// passes it for Vitess, then renames the tables into place).
func WithTablePrefix(prefix string) LoadOption {
	return func(o *loadOptions) { o.prefix = prefix }
}

// shardKeys is the shard column of every table of m for a Sharding
// dialect d (mapping.ShardKeys), nil for the others.
func shardKeys(d compile.Dialect, m *mapping.Mapping) map[string]string {
	if _, ok := d.(compile.Sharding); !ok {
		return nil
	}
	return m.ShardKeys()
}

// shardDef is the definition of the column mapping.ShardKeyColumn for a
// table placed with its string on a sharded engine, none for the others.
func (w *ddlWriter) shardDef(table string) []string {
	if w.shard[table] != mapping.ShardKeyColumn {
		return nil
	}
	return []string{w.d.Quote(mapping.ShardKeyColumn) + " " + w.d.ColumnType(schema.Int) + " NOT NULL"}
}

// ownerFK is the index cols with mapping.OwnerFK replaced by the table's
// one foreign key (fks), or left out where it has none or several.
func ownerFK(cols, fks []string) []string {
	i := slices.Index(cols, mapping.OwnerFK)
	if i < 0 {
		return cols
	}
	out := slices.Clone(cols)
	if len(fks) == 1 {
		out[i] = fks[0]
		return out
	}
	return slices.Delete(out, i, i+1)
}
