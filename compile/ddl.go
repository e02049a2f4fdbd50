package compile

import (
	"slices"
	"strings"

	"github.com/croql/croql/schema"
)

// Check reports every problem of the mapping: an object without a table,
// a field without a column, a collection without a child entry, a table
// with children but no key, an empty or impossible identifier, one column
// holding two different values.
func (m *Mapping) Check() error {
	_, err := m.layout()
	return err
}

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
func (m *Mapping) DDL(d Dialect) []string {
	stmts := m.ddl(d, false)
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
func (m *Mapping) ddl(d Dialect, keysAfter bool) []ddlStmt {
	l, err := m.layout()
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
	index := func(table string, unique bool, cols []string, kinds map[string]schema.Kind) {
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
		idx = append(idx, ddlStmt{table: table, sql: kw + d.Quote(name) + " ON " + d.Quote(table) + " (" + strings.Join(parts, ", ") + ")"})
	}
	for _, ti := range l.tables {
		t := ti.t
		var defs []string
		kinds := map[string]schema.Kind{}
		for _, c := range ti.cols {
			kinds[c.name] = c.kind
			def := d.Quote(c.name) + " " + d.ColumnType(c.kind)
			notNull := !c.null && !(c.goName == "" && len(ti.fks) > 1)
			if notNull {
				def += " NOT NULL"
			}
			defs = append(defs, def)
		}
		if len(ti.pkey) > 0 {
			if pk := primaryKey(t.Name, ti.pkey...); pk != "" {
				defs = append(defs, pk)
			}
		}
		out = append(out, ddlStmt{table: t.Name, create: true, sql: "CREATE TABLE " + d.Quote(t.Name) + " (\n  " + strings.Join(defs, ",\n  ") + "\n)" + d.TableOptions()})
		out = append(out, shardDDL(d, t.Name, shardColumn(ti))...)
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
			index(t.Name, unique, cols, kinds)
		}
		for _, fk := range ti.fks {
			add(false, fk)
		}
		for _, r := range ti.refs {
			add(false, r)
		}
		for _, u := range t.Unique {
			add(true, u...)
		}
		for _, x := range t.Indexes {
			add(false, x...)
		}
	}
	for _, j := range l.joins {
		defs := []string{
			d.Quote(j.from) + " " + d.ColumnType(schema.Int) + " NOT NULL",
			d.Quote(j.to) + " " + d.ColumnType(schema.Int) + " NOT NULL",
		}
		if pk := primaryKey(j.name, j.from, j.to); pk != "" {
			defs = append(defs, pk)
		}
		out = append(out, ddlStmt{table: j.name, create: true, sql: "CREATE TABLE " + d.Quote(j.name) + " (\n  " + strings.Join(defs, ",\n  ") + "\n)" + d.TableOptions()})
		out = append(out, shardDDL(d, j.name, j.from)...)
		index(j.name, false, []string{j.to}, nil)
	}
	out = append(out, keys...)
	return append(out, idx...)
}

// TableNames returns every table of the mapping, join tables included, in
// DDL order.
func (m *Mapping) TableNames() []string {
	l, err := m.layout()
	if err != nil {
		return nil
	}
	var out []string
	for _, ti := range l.tables {
		out = append(out, ti.t.Name)
	}
	for _, j := range l.joins {
		out = append(out, j.name)
	}
	return out
}
