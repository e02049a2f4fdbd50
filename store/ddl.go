package store

import (
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

// ddlStmt is one statement of the DDL and the table it is about.
type ddlStmt struct {
	table, sql string
	// create: a CREATE TABLE (else an index or a key, for after the rows).
	create bool
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
	var out, keys, idx []ddlStmt
	primaryKey := func(table string, cols ...string) string {
		q := make([]string, len(cols))
		for i, c := range cols {
			q[i] = d.Quote(c)
		}
		pk := "PRIMARY KEY (" + strings.Join(q, ", ") + ")"
		if keysAfter {
			keys = append(keys, ddlStmt{table: table, sql: "ALTER TABLE " + d.Quote(table) + " ADD " + pk})
			return ""
		}
		return pk
	}
	for _, ti := range l.Tables {
		t := ti.Table
		var defs []string
		kinds := map[string]schema.Kind{}
		for _, c := range ti.Columns {
			kinds[c.Name] = c.Kind
			def := d.Quote(c.Name) + " " + d.ColumnType(c.Kind)
			notNull := !c.Null && !(c.GoName == "" && len(ti.FKs) > 1)
			if notNull {
				def += " NOT NULL"
			}
			defs = append(defs, def)
		}
		if len(ti.PKey) > 0 {
			if pk := primaryKey(t.Name, ti.PKey...); pk != "" {
				defs = append(defs, pk)
			}
		}
		out = append(out, ddlStmt{table: t.Name, create: true, sql: "CREATE TABLE " + d.Quote(t.Name) + " (\n  " + strings.Join(defs, ",\n  ") + "\n)" + d.TableOptions()})
		out = append(out, shardDDL(d, t.Name, ti.ShardColumn())...)
		idx = append(idx, tableIndexes(d, ti, kinds)...)
	}
	for _, j := range l.Joins {
		defs := []string{
			d.Quote(j.From) + " " + d.ColumnType(schema.Int) + " NOT NULL",
			d.Quote(j.To) + " " + d.ColumnType(schema.Int) + " NOT NULL",
		}
		if pk := primaryKey(j.Name, j.From, j.To); pk != "" {
			defs = append(defs, pk)
		}
		out = append(out, ddlStmt{table: j.Name, create: true, sql: "CREATE TABLE " + d.Quote(j.Name) + " (\n  " + strings.Join(defs, ",\n  ") + "\n)" + d.TableOptions()})
		out = append(out, shardDDL(d, j.Name, j.From)...)
		idx = append(idx, indexDDL(d, j.Name, false, []string{j.To}, nil))
	}
	out = append(out, keys...)
	return append(out, idx...)
}

// tableIndexes are the indexes of a table of the layout: on its foreign
// keys, its references, its unique and its extra indexes, each column
// list once, the key alone left out.
func tableIndexes(d compile.Dialect, ti *mapping.TableLayout, kinds map[string]schema.Kind) []ddlStmt {
	t := ti.Table
	var out []ddlStmt
	var done [][]string
	add := func(unique bool, cols ...string) {
		if len(cols) == 0 || (len(cols) == 1 && cols[0] == t.Key) {
			return
		}
		for _, x := range done {
			if slices.Equal(x, cols) {
				return
			}
		}
		done = append(done, cols)
		out = append(out, indexDDL(d, t.Name, unique, cols, kinds))
	}
	for _, fk := range ti.FKs {
		add(false, fk)
	}
	for _, r := range ti.Refs {
		add(false, r)
	}
	for _, u := range t.Unique {
		add(true, u...)
	}
	for _, x := range t.Indexes {
		add(false, x...)
	}
	return out
}

// indexDDL is CREATE [UNIQUE] INDEX on cols of table (kinds: the
// columns' kinds, for the dialect's index column form).
func indexDDL(d compile.Dialect, table string, unique bool, cols []string, kinds map[string]schema.Kind) ddlStmt {
	name := table + "_" + strings.Join(cols, "_") + "_idx"
	if len(name) > 63 {
		name = name[:59] + "_idx"
	}
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = d.IndexColumn(c, kinds[c])
	}
	kw := "CREATE INDEX "
	if unique {
		kw = "CREATE UNIQUE INDEX "
	}
	return ddlStmt{table: table, sql: kw + d.Quote(name) + " ON " + d.Quote(table) + " (" + strings.Join(parts, ", ") + ")"}
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
		out = append(out, ddlStmt{table: table, create: true, sql: stmt})
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
