// Package mapping is the one description of where CroQL's objects are
// stored in SQL: every table's name, key, columns, children (foreign keys
// and join tables), indexes and shard key. The compiler (package compile)
// reads it to write a WHERE clause, package store to create, load and read
// the tables, and croql serve to read and write rows; nothing else names a
// table or a column.
//
// [Default] derives the reference mapping from the catalog's Go types;
// [Mapping.Layout] lists the physical tables and columns it implies.
package mapping

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"unicode"

	"github.com/croql/croql/ast"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/typecheck"
)

// Mapping says where every object of a catalog is stored: its table, the
// column of each field, and how the elements of each collection are found
// from their parent. Build one with [Default] and change what a
// service names differently (see docs/sql.md):
//
//	m := mapping.Default(cat)
//	m.Tables["source string"].Name = "app_strings"
//	m.Tables["source string"].Columns["text"] = "body"
//
// Tables is keyed by schema object name (schema.Object.Name). Objects with
// the same Go type (a string's translation and the translations context's
// root) share one *Table, so a change reaches both.
//
// A Mapping is read, never written, by Compile, DDL, Load and Run, so one
// value serves any number of goroutines once it is set up.
type Mapping struct {
	Tables map[string]*Table
	cat    *schema.Catalog
}

// Table is how one object is stored.
type Table struct {
	// Name is the table name.
	Name string
	// Key is the column identifying a row, filled from the Go struct
	// field "ID" of the object; children, join tables and references
	// hold it. Empty for element tables nothing refers to.
	Key string
	// Columns maps each field (by schema.Field.Name) to its column. The
	// column of a Record field (file, branch) holds the key of the
	// referenced row; the column of a User field holds the user id. Fields
	// derived from one Go field (`type is plain` ... from Type, `is
	// visible` from IsHidden) name that Go field's column. Collection
	// fields are in Children instead.
	Columns map[string]string
	// Children maps each collection field (by name) to how its elements
	// are reached from a row of this table.
	Children map[string]*Child
	// Indexes lists extra indexes of the reference DDL, each a column list.
	// Keys, foreign keys, join tables and reference columns are indexed
	// without being listed. OwnerFK in a list stands for the element
	// table's foreign key to its owner (Child.FK, as renamed), and is left
	// out where the table has none or several.
	Indexes [][]string
	// Unique lists unique indexes of the reference DDL.
	Unique [][]string
	// Stored maps Go fields that CroQL does not query, but that the
	// platform's API shows, to their columns (a TM record's language, the
	// date a translation was added). The loader fills them, the DDL
	// creates them nullable (rows written without them read as absent),
	// and no query reads them.
	Stored map[string]string
	// Counts maps counts of a row's collections to columns of the row
	// that hold them, kept by the loader and by croql serve's writes
	// (store.RefreshCounts): the key is a collection field's name
	// ("translations"), or that, ` where ` and a filter of its elements
	// (CountKey): terms joined by ` and `, each a plain bool field of the
	// element, maybe after `not` ("languages summary where is translated
	// and not is approved"), a plain int field compared with an int
	// constant ("languages summary where approvalsCount > 0"), or the
	// count of a collection of the element compared with one
	// ("translations where count of votes > 0"). The compiler reads such
	// a column for `count of translations`, `count of languages summary
	// where (not is approved and is translated)` (the terms in any order)
	// or `count of languages summary where (approvalsCount >= 1)` (a
	// comparison that holds of the same ints) of the row instead of
	// counting the elements. The DDL creates them NOT NULL DEFAULT 0,
	// apart from the Layout's Columns (rows are written without them).
	//
	// A key `F of C` (SoleKey: "user of translations") is instead the
	// value of the field F that every element of the collection C shares:
	// the user of all of a string's translations when one user made them
	// all, NULL when they differ or there are none. F is a user field of
	// the element that is never absent. The compiler reads it for "every
	// translation is by X" (`count of translations = count of translations
	// where (user = X)`) and "some translation is not by X" (`count of
	// translations where (user != X) > 0`); the DDL creates it nullable,
	// with an index.
	Counts map[string]string
	// Filed is, for a table whose rows another table's collection lists
	// through a join table (translations, which source strings list), the
	// column that holds the key of the row each is filed under: among the
	// rows that list it, one whose `is duplicate` is false before one
	// whose is true (a master string before its duplicates, which share
	// its translations), then the lowest key; NULL when none lists it.
	// The loader writes it and store.RefreshCounts keeps it, as they do
	// the Counts; the DDL creates it nullable, apart from the Layout's
	// Columns. croql serve counts a translations list's strings from it
	// (COUNT(DISTINCT) over an index range of the language and it).
	Filed string
	// FiledCounts, for a table with a Filed column, keeps in a table of
	// its own, for each value of one field of its rows, how many distinct
	// rows they are filed under (a language's translations: how many
	// strings the translations list of that language lists). The loader
	// fills it; store.RefreshCounts and the writers of croql serve keep
	// it (store.RefreshFiledCounts); croql serve reads a translations
	// list's total from it when nothing but the language filters the
	// list.
	FiledCounts *FiledCounts
	// CountsBy are counts of the elements of a collection of the row for
	// each value of one of their fields, each in a table of its own (see
	// CountsBy).
	CountsBy []CountsBy
	// Totals, for a table with Counts, names a table of one row that keeps
	// how many rows the table has and, for each Counts column, how many of
	// them have it above zero (TotalsTable). The loader fills it, and
	// store.RefreshCounts counts it again, a pass over the table, whenever
	// it refreshes the table's counts: it is for tables that are rarely
	// written (croql serve's writes touch none of the reference mapping's
	// tables that have one). The compiler reads it for the total of a
	// whole condition that is one of those counts above zero, or its
	// negation (`count of records > 0`, `count of records where
	// (usageCount > 0) = 0`). A sharded engine has no such table.
	Totals string
	// TextIndexes lists string fields (by name, never absent) whose
	// columns get an index of their trigrams where the engine has one: on
	// SQLite an FTS5 table of the trigram tokenizer (TrigramTable, kept
	// by triggers), on PostgreSQL a GIN index of pg_trgm (when the server
	// lets croql create the extension). The compiler narrows a whole set's
	// `F contains "..."` (three characters or more, not folded) to the
	// rows the index finds, the engine's exact test still deciding.
	TextIndexes []string
}

// TrigramTable is the SQLite FTS5 table of the trigrams of column col of
// table (Table.TextIndexes).
func TrigramTable(table, col string) string { return table + "_" + col + "_trgm" }

// SoleKey is the key of Table.Counts of the value of field field that
// every element of collection coll shares: "user of translations".
func SoleKey(field, coll string) string { return field + " of " + coll }

// Sole is the column of t that holds the value of field field shared by
// every element of its collection coll (see SoleKey), "" when it has
// none.
func (t *Table) Sole(field, coll string) string { return t.Counts[SoleKey(field, coll)] }

// CountKey is the key of Table.Counts of the count of the elements of
// collection coll, or of those where where holds when it is not empty:
// terms joined by ` and `, each a bool field maybe after `not`, an int
// field compared with an int constant (`rating > 0`), or `count of` a
// collection of the element compared with one (`count of votes > 0`).
func CountKey(coll, where string) string {
	if where == "" {
		return coll
	}
	return coll + " where " + where
}

// Child tells how the elements of a collection are found.
type Child struct {
	// FK is the column of the element table holding the parent's key:
	// element.FK = parent.Key.
	FK string
	// Through, when set, is a join table instead: Through.From holds the
	// parent's key and Through.To the element's key (the element table
	// then needs a Key). Elements shared between parents (labels,
	// translations a duplicate shares with its master) are stored once.
	Through string
	From    string
	To      string
}

// Catalog is the catalog the mapping was built for.
func (m *Mapping) Catalog() *schema.Catalog { return m.cat }

// Table returns the table of obj.
func (m *Mapping) Table(obj *schema.Object) (*Table, error) {
	if obj == nil {
		return nil, errors.New("mapping: no object")
	}
	t, ok := m.Tables[obj.Name]
	if !ok || t == nil {
		return nil, fmt.Errorf("mapping: the mapping has no table for %s", obj.Name)
	}
	return t, nil
}

// Column returns the column of field f of obj.
func (m *Mapping) Column(obj *schema.Object, f *schema.Field) (*Table, string, error) {
	t, err := m.Table(obj)
	if err != nil {
		return nil, "", err
	}
	col, ok := t.Columns[f.Name]
	if !ok || col == "" {
		return nil, "", fmt.Errorf("mapping: the mapping has no column for `%s` of %s (table %s)", f.Name, obj.Name, t.Name)
	}
	return t, col, nil
}

// Collection is a collection of the object of one Go type: how its
// elements are reached (Child), their Go type and their table.
type Collection struct {
	Field *schema.Field
	Child *Child
	Elem  reflect.Type
	Table string
}

// Collections are the collections of the catalog object of Go type
// parent (the first such object, as the catalog lists them), for a
// service that finds a collection by its elements' Go type rather than by
// a name: a string's translations, labels, languages summary.
func (m *Mapping) Collections(parent reflect.Type) []Collection {
	for _, obj := range m.cat.Objects {
		if obj.GoType != parent {
			continue
		}
		pt, err := m.Table(obj)
		if err != nil {
			return nil
		}
		var out []Collection
		for _, f := range obj.Fields {
			if f.Type.Kind != schema.Collection || f.Type.Obj == nil || pt.Children[f.Name] == nil {
				continue
			}
			if et, err := m.Table(f.Type.Obj); err == nil {
				out = append(out, Collection{Field: f, Child: pt.Children[f.Name], Elem: f.Type.Obj.GoType, Table: et.Name})
			}
		}
		return out
	}
	return nil
}

// CollectionOf is the collection of parent whose elements are of Go type
// elem (false when it has none).
func (m *Mapping) CollectionOf(parent, elem reflect.Type) (Collection, bool) {
	for _, c := range m.Collections(parent) {
		if c.Elem == elem {
			return c, true
		}
	}
	return Collection{}, false
}

// defaultTables are the table names Default gives the catalog's
// objects, by Go type name; other objects get snake_case plurals.
var defaultTables = map[string]string{
	"UserRef":         "users",
	"SourceString":    "strings",
	"File":            "files",
	"Branch":          "branches",
	"Comment":         "comments",
	"Screenshot":      "screenshots",
	"Translation":     "translations",
	"Vote":            "votes",
	"Approval":        "approvals",
	"LanguageSummary": "languages_summary",
	"Label":           "labels",
	"CustomField":     "custom_fields",
	"TMSegment":       "tm_segments",
	"TMRecord":        "tm_records",
	"GlossaryTerm":    "glossary_terms",
	"GlossaryConcept": "glossary_concepts",
}

// parentKeys are the foreign key column names of the children of an
// object, by Go type name.
var parentKeys = map[string]string{
	"SourceString": "string_id",
	"Translation":  "translation_id",
	"TMSegment":    "segment_id",
}

// shared element types are stored once and reached through a join table.
var shared = map[string]bool{"Label": true, "Translation": true}

// Default returns the reference mapping of cat: one table per Go
// type, snake_case columns named after the Go fields (`user_id` for a
// user, `file_id` for a file), a `<parent>_id` foreign key in element
// tables, and join tables for labels (string_labels) and translations
// (string_translations: a duplicate string lists the translations it
// shares with its master). docs/sql.md shows the resulting tables.
//
// Default is computed from the struct definitions, not global
// state; the table-name defaults above are read-only.
func Default(cat *schema.Catalog) *Mapping {
	m := &Mapping{Tables: map[string]*Table{}, cat: cat}
	byType := map[reflect.Type]*Table{}
	tableOf := func(o *schema.Object) *Table {
		if t, ok := byType[o.GoType]; ok {
			return t
		}
		name := defaultTables[o.GoType.Name()]
		if name == "" {
			name = snake(o.GoType.Name()) + "s"
		}
		t := &Table{Name: name, Columns: map[string]string{}, Children: map[string]*Child{}}
		if _, ok := o.GoType.FieldByName("ID"); ok && isReferenced(cat, o) {
			t.Key = "id"
		}
		byType[o.GoType] = t
		return t
	}
	objs := slices.Clone(cat.Objects)
	for _, c := range cat.Contexts {
		if !slices.Contains(objs, c.Root) {
			objs = append(objs, c.Root)
		}
	}
	for _, o := range objs {
		if o == nil || o.GoType == nil {
			continue
		}
		t := tableOf(o)
		m.Tables[o.Name] = t
		for _, f := range o.Fields {
			switch f.Type.Kind {
			case schema.Collection:
				if _, done := t.Children[f.Name]; done || f.Type.Obj == nil {
					continue
				}
				et := tableOf(f.Type.Obj)
				if shared[f.Type.Obj.GoType.Name()] {
					from := parentFK(o)
					to := strings.TrimSuffix(et.Name, "s") + "_id"
					t.Children[f.Name] = &Child{Through: singular(t.Name) + "_" + et.Name, From: from, To: to}
				} else {
					t.Children[f.Name] = &Child{FK: parentFK(o)}
				}
			case schema.Record:
				t.Columns[f.Name] = snake(f.GoName) + "_id"
			case schema.User:
				col := snake(f.GoName)
				if col == "user" {
					col = "user_id"
				}
				t.Columns[f.Name] = col
			default:
				t.Columns[f.Name] = snake(f.GoName)
			}
		}
	}
	m.addIndexes()
	return m
}

// addIndexes adds the reference DDL's extra indexes and the Stored
// columns the platform's API shows.
func (m *Mapping) addIndexes() {
	add := func(obj string, unique bool, cols ...string) {
		if t := m.Tables[obj]; t != nil {
			if unique {
				t.Unique = append(t.Unique, cols)
			} else {
				t.Indexes = append(t.Indexes, cols)
			}
		}
	}
	if t := m.Tables["translation"]; t != nil {
		t.Stored = map[string]string{"Added": "added"}
	}
	if t := m.Tables["source string"]; t != nil {
		t.Stored = map[string]string{"PluralForms": "plural_forms"}
	}
	if t := m.Tables["TM record"]; t != nil {
		t.Stored = map[string]string{"Language": "language_id"}
	}
	// What a copy of a project keeps of its comments that queries do
	// not read: the platform's API shows it.
	if t := m.Tables["comment"]; t != nil {
		t.Stored = map[string]string{"ID": "id", "Text": "text", "Added": "added"}
	}
	if t := m.Tables["source string"]; t != nil {
		t.Counts = defaultCounts()
		t.CountsBy = []CountsBy{languageCounts()}
		t.TextIndexes = []string{"text"}
	}
	if t := m.Tables["translation"]; t != nil {
		t.Counts = translationCounts()
		t.Filed = "filed_string_id"
		t.FiledCounts = &FiledCounts{Name: "filed_language_counts", By: "language"}
		t.TextIndexes = []string{"text"}
	}
	if t := m.Tables["TM segment"]; t != nil {
		t.Counts = segmentCounts()
		t.CountsBy = []CountsBy{creatorCounts()}
		// croql serve writes no TM: a recount per write costs nothing.
		t.Totals = "tm_segment_totals"
	}
	add("user", true, "login")
	add("source string", false, "identifier")
	add("source string", false, "added")
	add("source string", false, "updated")
	add("source string", false, "is_hidden")
	// Duplicates or not, then hidden, then the count of translations:
	// `is hidden and not is duplicate and count of translations > 0` is a
	// range of this index alone, and `is duplicate` a range of its first
	// column. (Led by is_hidden, SQLite skip-scanned it for `not is
	// duplicate`, slower than the pass it replaced.)
	add("source string", false, "is_duplicate", "is_hidden", "n_translations")
	add("source string", false, "type")
	// Comments by a user: the owner's key beside user_id covers the
	// strings of that user's comments (`count of comments where (user =
	// @user:"alice") > 0`): the index alone, not each comment's row.
	add("comment", false, "user_id", OwnerFK)
	// A TM's records by their creator, and by segment with the usage
	// count: the total of `count of records where (createdBy = X) > 0`
	// is a range of the first (SELECT COUNT(DISTINCT segment_id) ...
	// WHERE created_by = X, compile.SQL.Count); the second answers a
	// page's probe per segment of a usage count the segment's row does
	// not keep (`usageCount > 1`) from the index alone, and the total of
	// one in a pass over it in segment order without the records' rows
	// or a sort (`usageCount > 0` reads n_records_used: segmentCounts).
	add("TM record", false, "created_by", OwnerFK)
	add("TM record", false, OwnerFK, "usage_count")
	// Summary elements by their translations' date, with their string:
	// the total of `count of languages summary where (translation updated
	// between A and B) > 0` (COUNT(DISTINCT string_id) over the date's
	// range) reads this index alone, not each element's row.
	add("languages summary element", false, "translation_updated", OwnerFK)
	// A string's summary elements by their translations' date: a page of
	// `count of languages summary where (translation updated between A
	// and B) > 0` asks each string in key order whether it has one, from
	// this index alone (it serves the owner's lookups too: the DDL then
	// makes no index of the foreign key alone).
	add("languages summary element", false, OwnerFK, "translation_updated")
	add("translation", false, "language")
	// A language's translations by a user: `user = @user:"alice"` in the
	// translations list (alone, or beside a kept count in an `or`, which
	// SQLite and PostgreSQL answer by the union of two indexes' ranges).
	add("translation", false, "language", "user_id")
	// A language's translations by the string each is filed under: the
	// total of a translations list is COUNT(DISTINCT) over a range of it.
	add("translation", false, "language", "filed_string_id")
	add("languages summary element", false, "language")
	add("glossary term", false, "concept_id")
	add("glossary term", false, "language")
	// Approvals by a user: the IN form of "approved by @user" starts from
	// that user's few approvals instead of reading every translation.
	add("approval", false, "user_id")
}

// OwnerFK, in a list of Table.Indexes, is the element table's foreign key
// to its owner, whatever Child.FK names it.
const OwnerFK = "<owner fk>"

func parentFK(o *schema.Object) string {
	if k, ok := parentKeys[o.GoType.Name()]; ok {
		return k
	}
	return snake(o.GoType.Name()) + "_id"
}

func singular(table string) string { return strings.TrimSuffix(table, "s") }

// isReferenced reports whether rows of o need a key: o is a context root,
// has collections, is the target of a reference or is a shared element.
func isReferenced(cat *schema.Catalog, o *schema.Object) bool {
	if shared[o.GoType.Name()] || o == cat.UserObj {
		return true
	}
	for _, c := range cat.Contexts {
		if c.Root.GoType == o.GoType {
			return true
		}
	}
	for _, x := range cat.Objects {
		for _, f := range x.Fields {
			if f.Type.Kind == schema.Record && f.Type.Obj != nil && f.Type.Obj.GoType == o.GoType {
				return true
			}
		}
	}
	for _, f := range o.Fields {
		if f.Type.Kind == schema.Collection {
			return true
		}
	}
	return false
}

// snake turns a Go name into snake_case: HasQAIssues -> has_qa_issues,
// MaxLength -> max_length, URL -> url.
func snake(s string) string {
	rs := []rune(s)
	var b strings.Builder
	for i, r := range rs {
		if unicode.IsUpper(r) && i > 0 {
			prevLower := unicode.IsLower(rs[i-1]) || unicode.IsDigit(rs[i-1])
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if prevLower || (nextLower && unicode.IsUpper(rs[i-1])) {
				b.WriteByte('_')
			}
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// Column is one physical column of a table, for the DDL, the loader and
// the reader.
type Column struct {
	Name string
	Kind schema.Kind
	Null bool
	// GoName is the Go field the value comes from ("" for foreign keys,
	// which the loader fills from the parent).
	GoName string
	// Ref marks a Record column: the value is the key of a pointer field.
	Ref bool
	// Ordinal marks the OrdinalColumn of a keyless element table: the
	// element's position in its owner's collection.
	Ordinal bool
	// API is the name the platform's API shows the column's value under
	// (the Go field's `api` struct tag: `api:"fileId"`), "" for a column
	// the API does not show. APIZero: the API writes the zero value (0,
	// "") where the column is NULL (`api:"maxLength,zero"`).
	API     string
	APIZero bool
}

// OrdinalColumn is the column that, with the owner's foreign key, is the
// primary key of an element table without a key of its own (comments,
// votes, approvals, ...): the element's position (0, 1, ...) in its
// owner's collection. Every table has a key, so that logical
// replication, CDC tools and Galera can update and delete its rows.
const OrdinalColumn = "ordinal"

// TableLayout is a table with the physical columns the mapping implies.
type TableLayout struct {
	Table  *Table
	Object *schema.Object
	// Columns are the table's physical columns: the key first, then the
	// fields' columns in the catalog's order, the stored ones, the
	// foreign keys and the ordinal.
	Columns []Column
	// FKs are the foreign key columns (filled from the parent's key).
	FKs []string
	// Refs are the Record reference columns (indexed).
	Refs []string
	// PKey is the primary key: the table's Key, or for an element table
	// without one its foreign key and OrdinalColumn.
	PKey []string
	// Counts are the table's Counts columns (not among Columns).
	Counts []CountColumn
	// Filed is the table's Filed column (not among Columns), nil when it
	// has none.
	Filed *FiledColumn
	// Totals is the table's Totals table, nil when it has none.
	Totals *TotalsTable
}

// FiledColumn is a Table.Filed column: Name holds the key of the row of
// Owner, among those whose collection (through Child's join table) lists
// the row, it is filed under; Dup is Owner's `is duplicate` column ("":
// Owner has none, the lowest key is taken). Counts is its table's
// FiledCounts, nil when it has none.
type FiledColumn struct {
	Name   string
	Owner  *Table
	Child  *Child
	Dup    string
	Counts *FiledCountsTable
}

// FiledCounts names the table of a Table.FiledCounts (Name) and the
// field of the rows whose values it counts by (By, a field that is not
// a collection).
type FiledCounts struct {
	Name, By string
}

// FiledCountsTable is a Table.FiledCounts table as the Layout resolves
// it: one row per value (column ByColumn, of kind ByKind, its primary
// key) that some row with a Filed key has, and Count, the number of
// distinct Filed keys of those rows.
type FiledCountsTable struct {
	Name, ByColumn, Count string
	ByKind                schema.Kind
}

// FiledCountColumn is the count column of every FiledCountsTable.
const FiledCountColumn = "n_filed"

// Join is a join table of the mapping: From holds the parent's key, To
// the element's.
type Join struct {
	Name, From, To string
}

// Layout is every table of a mapping with its physical columns, in a
// stable order (the catalog's), for the DDL, the loader and the reader.
type Layout struct {
	Tables []*TableLayout
	Joins  []Join
	byT    map[*Table]*TableLayout
	// countsBy are the CountsBy tables (not among Tables).
	countsBy []*CountsByTable
}

// Of returns the layout of table t (nil when t is not the mapping's).
func (l *Layout) Of(t *Table) *TableLayout { return l.byT[t] }

// Layout checks the mapping against its catalog and lists the physical
// tables.
func (m *Mapping) Layout() (*Layout, error) {
	if m.cat == nil {
		return nil, errors.New("mapping: the mapping has no catalog (build it with Default)")
	}
	b := &layoutBuilder{m: m, l: &Layout{byT: map[*Table]*TableLayout{}}, objs: m.objects()}
	for _, o := range b.objs {
		b.fields(o)
	}
	b.stored()
	for _, o := range b.objs {
		b.children(o)
	}
	b.keys()
	b.counts()
	b.filed()
	b.countsByTables()
	b.totals()
	b.apiNames()
	if len(b.errs) > 0 {
		return nil, errors.Join(b.errs...)
	}
	return b.l, nil
}

// objects are the catalog's objects and the contexts' roots, in the
// catalog's order.
func (m *Mapping) objects() []*schema.Object {
	objs := slices.Clone(m.cat.Objects)
	for _, c := range m.cat.Contexts {
		if !slices.Contains(objs, c.Root) {
			objs = append(objs, c.Root)
		}
	}
	return objs
}

// layoutBuilder builds a Layout, collecting every problem of the mapping.
type layoutBuilder struct {
	m    *Mapping
	l    *Layout
	objs []*schema.Object
	errs []error
}

func (b *layoutBuilder) fail(err error) { b.errs = append(b.errs, err) }

// table is the layout of o's table, added with its key column when new.
func (b *layoutBuilder) table(o *schema.Object) (*Table, *TableLayout) {
	t, err := b.m.Table(o)
	if err != nil {
		b.fail(err)
		return nil, nil
	}
	if err := CheckIdent(t.Name); err != nil {
		b.fail(fmt.Errorf("table of %s: %w", o.Name, err))
		return nil, nil
	}
	ti := b.l.byT[t]
	if ti == nil {
		ti = &TableLayout{Table: t, Object: o}
		b.l.byT[t] = ti
		b.l.Tables = append(b.l.Tables, ti)
		if t.Key != "" {
			if err := CheckIdent(t.Key); err != nil {
				b.fail(fmt.Errorf("key of %s: %w", t.Name, err))
			}
			ti.Columns = append(ti.Columns, Column{Name: t.Key, Kind: schema.Int, GoName: "ID"})
		}
	}
	return t, ti
}

// fields adds the columns of o's scalar, record and user fields.
func (b *layoutBuilder) fields(o *schema.Object) {
	t, ti := b.table(o)
	if ti == nil {
		return
	}
	for _, f := range o.Fields {
		if f.Type.Kind == schema.Collection {
			if _, ok := t.Children[f.Name]; !ok {
				b.fail(fmt.Errorf("mapping: the mapping of %s has no child entry for collection `%s`", o.Name, f.Name))
			}
			continue
		}
		col, ok := t.Columns[f.Name]
		if !ok || col == "" {
			b.fail(fmt.Errorf("mapping: the mapping has no column for `%s` of %s (table %s)", f.Name, o.Name, t.Name))
			continue
		}
		if err := CheckIdent(col); err != nil {
			b.fail(fmt.Errorf("column of `%s` of %s: %w", f.Name, o.Name, err))
			continue
		}
		c := Column{Name: col, Kind: f.Type.Kind, Null: f.Nullable, GoName: f.GoName}
		base := typecheck.DerivedBase(f) // the column of a derived bool holds its base
		switch {
		case base != nil:
			c.Kind = base.Type.Kind
		case f.Type.Kind == schema.Record:
			c.Kind, c.Ref = schema.Int, true
		case f.Type.Kind == schema.User:
			c.Kind = schema.Int
		}
		if err := ti.add(c); err != nil {
			b.fail(err)
		}
		if c.Ref && !slices.Contains(ti.Refs, col) {
			ti.Refs = append(ti.Refs, col)
		}
	}
}

// stored adds the Stored Go fields no query reads, in a stable order.
func (b *layoutBuilder) stored() {
	for _, ti := range b.l.Tables {
		if ti.Object == nil || ti.Object.GoType == nil {
			continue
		}
		for _, goName := range slices.Sorted(maps.Keys(ti.Table.Stored)) {
			col := ti.Table.Stored[goName]
			if err := CheckIdent(col); err != nil {
				b.fail(fmt.Errorf("stored column of %s.%s: %w", ti.Table.Name, goName, err))
				continue
			}
			sf, ok := ti.Object.GoType.FieldByName(goName)
			if !ok {
				b.fail(fmt.Errorf("mapping: table %s stores %s, which %s does not have", ti.Table.Name, goName, ti.Object.GoType))
				continue
			}
			kind, err := storedKind(sf.Type)
			if err != nil {
				b.fail(fmt.Errorf("mapping: table %s stores %s: %w", ti.Table.Name, goName, err))
				continue
			}
			if err := ti.add(Column{Name: col, Kind: kind, Null: true, GoName: goName}); err != nil {
				b.fail(err)
			}
		}
	}
}

// children adds the foreign keys and join tables of o's collections.
func (b *layoutBuilder) children(o *schema.Object) {
	t := b.m.Tables[o.Name]
	if t == nil {
		return
	}
	for _, f := range o.Fields {
		ch := t.Children[f.Name]
		if f.Type.Kind != schema.Collection || ch == nil || f.Type.Obj == nil {
			continue
		}
		et := b.m.Tables[f.Type.Obj.Name]
		if et == nil {
			continue // reported by fields
		}
		if ch.Through == "" && t.Key == "" {
			b.fail(fmt.Errorf("mapping: table %s has children (`%s`) but no key", t.Name, f.Name))
		}
		if ch.Through != "" {
			b.join(o, f, ch, et)
			continue
		}
		if err := CheckIdent(ch.FK); err != nil {
			b.fail(fmt.Errorf("foreign key of `%s` of %s: %w", f.Name, o.Name, err))
			continue
		}
		eti := b.l.byT[et]
		if eti != nil && !slices.Contains(eti.FKs, ch.FK) {
			eti.FKs = append(eti.FKs, ch.FK)
			if err := eti.add(Column{Name: ch.FK, Kind: schema.Int}); err != nil {
				b.fail(err)
			}
		}
	}
}

// join adds the join table of collection f of o, whose elements are in
// et.
func (b *layoutBuilder) join(o *schema.Object, f *schema.Field, ch *Child, et *Table) {
	if et.Key == "" {
		b.fail(fmt.Errorf("mapping: `%s` of %s goes through %s, but table %s has no key", f.Name, o.Name, ch.Through, et.Name))
	}
	for _, id := range []string{ch.Through, ch.From, ch.To} {
		if err := CheckIdent(id); err != nil {
			b.fail(fmt.Errorf("join table of `%s` of %s: %w", f.Name, o.Name, err))
		}
	}
	j := Join{ch.Through, ch.From, ch.To}
	if !slices.Contains(b.l.Joins, j) {
		b.l.Joins = append(b.l.Joins, j)
	}
}

// apiNames sets the API name of every column whose Go field has an
// `api` struct tag.
func (b *layoutBuilder) apiNames() {
	for _, ti := range b.l.Tables {
		if ti.Object == nil || ti.Object.GoType == nil {
			continue
		}
		for i := range ti.Columns {
			c := &ti.Columns[i]
			if c.GoName == "" {
				continue
			}
			if sf, ok := ti.Object.GoType.FieldByName(c.GoName); ok {
				name, opt, _ := strings.Cut(sf.Tag.Get("api"), ",")
				c.API, c.APIZero = name, name != "" && opt == "zero"
			}
		}
	}
}

// keys sets every table's primary key: its own, or owner plus ordinal. A
// table of a custom mapping with neither is left without a primary key
// (the default mapping has none such).
func (b *layoutBuilder) keys() {
	for _, ti := range b.l.Tables {
		switch {
		case ti.Table.Key != "":
			ti.PKey = []string{ti.Table.Key}
		case len(ti.FKs) == 1 && ti.Object != nil:
			if err := ti.add(Column{Name: OrdinalColumn, Kind: schema.Int, Ordinal: true}); err != nil {
				b.fail(err)
			}
			ti.PKey = []string{ti.FKs[0], OrdinalColumn}
		}
	}
}

// defaultCounts are the counts the reference mapping keeps on a source
// string's row: of its translations, comments, screenshots and languages
// summary, of its languages summary elements where each of the summary's
// flags the seed's patterns ask about is true (or two of them), where it
// has approvals or a positive rating, and of its translations with votes
// or with approvals.
func defaultCounts() map[string]string {
	out := map[string]string{
		"translations":      "n_translations",
		"comments":          "n_comments",
		"screenshots":       "n_screenshots",
		"languages summary": "n_summary",
		// Every translation by one user: the user.
		SoleKey("user", "translations"): "translations_user",
	}
	for _, f := range []string{"is translated", "is partially translated", "is approved", "is partially approved",
		"is auto translated", "is translated by tm", "is translated by mt", "is source changed after translation",
		"has translation as source", "has translation after approval", "has shared translation", "has qa issues"} {
		out[CountKey("languages summary", f)] = "n_summary_" + strings.ReplaceAll(f, " ", "_")
	}
	// Pairs of flags the seed patterns filter by.
	out[CountKey("languages summary", "is translated and not is approved")] = "n_summary_translated_not_approved"
	out[CountKey("languages summary", "is translated and not has shared translation")] = "n_summary_translated_not_shared"
	// Numbers and counts of the elements the seed patterns compare.
	out[CountKey("languages summary", "approvalsCount > 0")] = "n_summary_with_approvals"
	out[CountKey("languages summary", "rating > 0")] = "n_summary_rated"
	out[CountKey("translations", "count of votes > 0")] = "n_translations_with_votes"
	out[CountKey("translations", "count of approvals > 0")] = "n_translations_with_approvals"
	return out
}

// languageCounts are the counts the reference mapping keeps of a source
// string's translations in each language (in a table of their own): of
// them all, and of those with votes or with approvals, which `count of
// translations where (language = L and (count of approvals > 0 or count
// of votes > 0)) = 0` counts the strings of.
func languageCounts() CountsBy {
	return CountsBy{Name: "string_language_counts", Coll: "translations", By: "language", Counts: map[string]string{
		"":                       "n_translations",
		"count of votes > 0":     "n_with_votes",
		"count of approvals > 0": "n_with_approvals",
	}}
}

// creatorCounts are the counts the reference mapping keeps of a TM
// segment's records by the user who created them (in a table of their
// own), so that the total of `count of records where (createdBy = U) >
// 0` counts the segments from an index of the users instead of
// COUNT(DISTINCT segment_id) over the user's records.
func creatorCounts() CountsBy {
	return CountsBy{Name: "tm_segment_creator_counts", Coll: "records", By: "createdBy", Counts: map[string]string{
		"": "n_records",
	}}
}

// translationCounts are the counts the reference mapping keeps on a
// translation's row: of its votes, of its up votes, and of its approvals.
func translationCounts() map[string]string {
	return map[string]string{"votes": "n_votes", "approvals": "n_approvals",
		// `count of votes where (is up) >= 3`: the row's column.
		CountKey("votes", "is up"): "n_votes_up"}
}

// segmentCounts are the counts the reference mapping keeps on a TM
// segment's row: of its records, and of its records that have been used
// (`usageCount > 0`), the two counts of records the seed's TM patterns
// compare (`count of records = 0`, `count of records where (usageCount >
// 0) > 0`). A filter on a record's user or dates depends on the query's
// values and is counted over the records.
func segmentCounts() map[string]string {
	return map[string]string{
		"records":                             "n_records",
		CountKey("records", "usageCount > 0"): "n_records_used",
	}
}

// CountColumn is a column of Table.Counts: Name holds the count of the
// elements of the collection Field of the row (through Child, in table
// Elem) where every term of Where holds (every element when Where is
// empty).
type CountColumn struct {
	Name  string
	Field *schema.Field
	Child *Child
	Elem  *Table
	Where []CountTerm
	// Of, for a key `F of C` (SoleKey), is the element's field F: the
	// column holds the value of F that every element shares, NULL when
	// they differ or there are none (not a count; Where is empty), and
	// OfColumn is F's column in Elem.
	Of       *schema.Field
	OfColumn string
}

// CountTerm is a term of a CountColumn's filter. With Op ast.OpInvalid:
// the element's bool column Column (of the field Field) is true, or false
// when Not; or, when Equals is set, Field is a derived bool field (`is
// up`: schema.Field.Equals) and its string column Column holds Equals
// (another value when Not). Otherwise a comparison `x Op Value` (Op one of = != < <= > >=),
// negated when Not: x is the element's int column Column (of the field
// Field), or, when Of is set, the count of the elements of the element's
// collection Field (found through Of, in table OfElem).
type CountTerm struct {
	Column string
	Field  *schema.Field
	Not    bool
	Op     ast.Op
	Value  int64
	Of     *Child
	OfElem *Table
	Equals string
}

// counts checks and lists the Counts columns of every table.
func (b *layoutBuilder) counts() {
	for _, ti := range b.l.Tables {
		canon := map[string]string{}
		for _, key := range slices.Sorted(maps.Keys(ti.Table.Counts)) {
			cc, err := b.countColumn(ti, key)
			if err != nil {
				b.fail(fmt.Errorf("mapping: count %q of table %s: %w", key, ti.Table.Name, err))
				continue
			}
			ck := key
			if coll, where, ok := strings.Cut(key, " where "); ok {
				ck = CountKey(coll, strings.Join(countTerms(where), " and "))
			}
			if other, dup := canon[ck]; dup {
				b.fail(fmt.Errorf("mapping: counts %q and %q of table %s count the same elements", other, key, ti.Table.Name))
				continue
			}
			canon[ck] = key
			if slices.ContainsFunc(ti.Columns, func(c Column) bool { return c.Name == cc.Name }) ||
				slices.ContainsFunc(ti.Counts, func(c CountColumn) bool { return c.Name == cc.Name }) {
				b.fail(fmt.Errorf("mapping: count %q of table %s: column %s is taken", key, ti.Table.Name, cc.Name))
				continue
			}
			ti.Counts = append(ti.Counts, cc)
		}
	}
}

// filed checks and sets the Filed column of every table that has one:
// one collection of one table lists its rows, through a join table.
func (b *layoutBuilder) filed() {
	for _, ti := range b.l.Tables {
		name := ti.Table.Filed
		if name == "" {
			continue
		}
		if err := CheckIdent(name); err != nil {
			b.fail(fmt.Errorf("mapping: filed column of table %s: %w", ti.Table.Name, err))
			continue
		}
		if slices.ContainsFunc(ti.Columns, func(c Column) bool { return c.Name == name }) ||
			slices.ContainsFunc(ti.Counts, func(c CountColumn) bool { return c.Name == name }) {
			b.fail(fmt.Errorf("mapping: filed column of table %s: column %s is taken", ti.Table.Name, name))
			continue
		}
		fc, err := b.filedColumn(ti)
		if err != nil {
			b.fail(fmt.Errorf("mapping: filed column of table %s: %w", ti.Table.Name, err))
			continue
		}
		if fc.Counts, err = b.filedCounts(ti); err != nil {
			b.fail(fmt.Errorf("mapping: filed counts of table %s: %w", ti.Table.Name, err))
			continue
		}
		ti.Filed = fc
	}
}

// filedCounts resolves ti's FiledCounts (nil when it has none).
func (b *layoutBuilder) filedCounts(ti *TableLayout) (*FiledCountsTable, error) {
	spec := ti.Table.FiledCounts
	if spec == nil {
		return nil, nil
	}
	if err := CheckIdent(spec.Name); err != nil {
		return nil, err
	}
	if _, taken := b.m.Tables[spec.Name]; taken || slices.ContainsFunc(b.l.Tables, func(t *TableLayout) bool { return t.Table.Name == spec.Name }) {
		return nil, fmt.Errorf("table %s is taken", spec.Name)
	}
	if ti.Object == nil {
		return nil, errors.New("the table has no object")
	}
	f, _ := ti.Object.Field(spec.By)
	col := ti.Table.Columns[spec.By]
	if f == nil || f.Type.Kind == schema.Collection || f.Type.Kind == schema.Record || col == "" {
		return nil, fmt.Errorf("%s has no field `%s` kept in a column", ti.Object.Name, spec.By)
	}
	return &FiledCountsTable{Name: spec.Name, ByColumn: col, Count: FiledCountColumn, ByKind: f.Type.Kind}, nil
}

// filedColumn finds the one collection, through a join table, that lists
// ti's rows.
func (b *layoutBuilder) filedColumn(ti *TableLayout) (*FiledColumn, error) {
	var fc *FiledColumn
	for _, o := range b.objs {
		t := b.m.Tables[o.Name]
		if t == nil {
			continue
		}
		for _, f := range o.Fields {
			ch := t.Children[f.Name]
			if f.Type.Kind != schema.Collection || f.Type.Obj == nil || ch == nil || ch.Through == "" || b.m.Tables[f.Type.Obj.Name] != ti.Table {
				continue
			}
			if fc != nil && (fc.Owner != t || fc.Child.Through != ch.Through) {
				return nil, errors.New("several collections list its rows")
			}
			fc = &FiledColumn{Name: ti.Table.Filed, Owner: t, Child: ch}
			if df, _ := o.Field("is duplicate"); df != nil && df.Type.Kind == schema.Bool && !df.Nullable {
				fc.Dup = t.Columns[df.Name]
			}
		}
	}
	if fc == nil {
		return nil, errors.New("no collection lists its rows through a join table")
	}
	return fc, nil
}

// countColumn is the count of ti's row that key names.
func (b *layoutBuilder) countColumn(ti *TableLayout, key string) (CountColumn, error) {
	cc := CountColumn{Name: ti.Table.Counts[key]}
	if err := CheckIdent(cc.Name); err != nil {
		return cc, err
	}
	if ti.Object == nil || ti.Table.Key == "" {
		return cc, errors.New("the table has no key")
	}
	coll, where, _ := strings.Cut(key, " where ")
	of := ""
	if f, c, ok := strings.Cut(coll, " of "); ok && where == "" {
		of, coll = f, c
	}
	cc.Field, _ = ti.Object.Field(coll)
	if cc.Field == nil || cc.Field.Type.Kind != schema.Collection || cc.Field.Type.Obj == nil || ti.Table.Children[coll] == nil {
		return cc, fmt.Errorf("%s has no collection `%s`", ti.Object.Name, coll)
	}
	cc.Child = ti.Table.Children[coll]
	et, err := b.m.Table(cc.Field.Type.Obj)
	if err != nil {
		return cc, err
	}
	cc.Elem = et
	if of != "" {
		return soleColumn(cc, of)
	}
	if where == "" {
		return cc, nil
	}
	for _, term := range strings.Split(where, " and ") {
		ct, err := b.countTerm(cc.Field.Type.Obj, et, parseCountTerm(term))
		if err != nil {
			return cc, err
		}
		cc.Where = append(cc.Where, ct)
	}
	return cc, nil
}

// countTerm checks t, a term of a count's filter of the elements obj
// (stored in et), and resolves its column or collection.
func (b *layoutBuilder) countTerm(obj *schema.Object, et *Table, t countTerm) (CountTerm, error) {
	ct := CountTerm{Not: t.not, Op: t.op, Value: t.k}
	wf, _ := obj.Field(t.name)
	ct.Field = wf
	switch {
	case t.count:
		if wf == nil || wf.Type.Kind != schema.Collection || wf.Type.Obj == nil || et.Children[t.name] == nil || et.Key == "" {
			return ct, fmt.Errorf("`%s` is not a collection of %s, a table with a key", t.name, obj.Name)
		}
		nt, err := b.m.Table(wf.Type.Obj)
		if err != nil {
			return ct, err
		}
		ct.Of, ct.OfElem = et.Children[t.name], nt
		return ct, nil
	case t.op != ast.OpInvalid:
		if wf == nil || wf.Type.Kind != schema.Int || wf.Nullable || typecheck.DerivedBase(wf) != nil || et.Columns[t.name] == "" {
			return ct, fmt.Errorf("`%s` is not a stored int field of %s", t.name, obj.Name)
		}
	default:
		if wf == nil || wf.Type.Kind != schema.Bool || wf.Nullable || wf.Negate || et.Columns[t.name] == "" {
			return ct, fmt.Errorf("`%s` is not a stored bool field of %s", t.name, obj.Name)
		}
		// A derived `is up` (Mark = "up") is its string column's test.
		ct.Equals = wf.Equals
	}
	ct.Column = et.Columns[t.name]
	return ct, nil
}

// soleColumn completes cc, the column of a key `of of C`: of must be a
// user field of C's elements that is never absent and has a column.
func soleColumn(cc CountColumn, of string) (CountColumn, error) {
	f, _ := cc.Field.Type.Obj.Field(of)
	if f == nil || f.Type.Kind != schema.User || f.Nullable || typecheck.DerivedBase(f) != nil || cc.Elem.Columns[of] == "" {
		return cc, fmt.Errorf("`%s` is not a stored user field of %s that is never absent", of, cc.Field.Type.Obj.Name)
	}
	if cc.Child.Through != "" && cc.Elem.Key == "" {
		return cc, fmt.Errorf("table %s has no key", cc.Elem.Name)
	}
	cc.Of, cc.OfColumn = f, cc.Elem.Columns[of]
	return cc, nil
}

// Count is the column of t that holds the count of the elements of its
// collection coll (where where holds, when it is not empty: see
// CountKey; its terms in any order, each comparison in any form that
// holds of the same ints), "" when it has none.
func (t *Table) Count(coll, where string) string {
	if name := t.Counts[CountKey(coll, where)]; name != "" || where == "" {
		return name
	}
	terms := countTerms(where)
	for _, key := range slices.Sorted(maps.Keys(t.Counts)) {
		c, w, ok := strings.Cut(key, " where ")
		if ok && c == coll && slices.Equal(countTerms(w), terms) {
			return t.Counts[key]
		}
	}
	return ""
}

// storedKind is the column kind of a Stored Go field's type.
func storedKind(t reflect.Type) (schema.Kind, error) {
	if t == reflect.TypeFor[schema.Time]() {
		return schema.Datetime, nil
	}
	switch t.Kind() {
	case reflect.String:
		return schema.String, nil
	case reflect.Bool:
		return schema.Bool, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return schema.Int, nil
	case reflect.Float32, reflect.Float64:
		return schema.Float, nil
	}
	return schema.Invalid, fmt.Errorf("a %s has no column type", t)
}

// add adds a column unless a column of that name is there already, in
// which case both must come from the same Go field.
func (ti *TableLayout) add(c Column) error {
	for _, x := range ti.Columns {
		if x.Name == c.Name {
			if x.GoName != c.GoName || x.Ordinal != c.Ordinal || (x.Kind != c.Kind && !(x.GoName == "" && c.GoName == "")) {
				return fmt.Errorf("mapping: column %s of table %s holds two different values (%s and %s)", c.Name, ti.Table.Name, orFK(x.GoName), orFK(c.GoName))
			}
			return nil
		}
	}
	ti.Columns = append(ti.Columns, c)
	return nil
}

func orFK(goName string) string {
	if goName == "" {
		return "a foreign key"
	}
	return "Go field " + goName
}

// CheckIdent rejects identifiers no engine can hold: empty, holding NUL,
// or longer than 63 bytes.
func CheckIdent(s string) error {
	switch {
	case s == "":
		return errors.New("empty identifier")
	case strings.IndexByte(s, 0) >= 0:
		return fmt.Errorf("identifier %q holds a NUL character", s)
	case len(s) > 63:
		return fmt.Errorf("identifier %q is longer than 63 bytes", s)
	}
	return nil
}

// Check reports every problem of the mapping: an object without a table,
// a field without a column, a collection without a child entry, a table
// with children but no key, an empty or impossible identifier, one column
// holding two different values.
func (m *Mapping) Check() error {
	_, err := m.Layout()
	return err
}

// TableNames returns every table of the mapping, join tables included, in
// DDL order.
func (m *Mapping) TableNames() []string {
	l, err := m.Layout()
	if err != nil {
		return nil
	}
	var out []string
	for _, ti := range l.Tables {
		out = append(out, ti.Table.Name)
	}
	for _, j := range l.Joins {
		out = append(out, j.Name)
	}
	return out
}

// TablesWithCounts is TableNames, the CountsBy tables, the FiledCounts
// tables and the Totals tables: every table the DDL creates on an engine that keeps counts (not
// a sharded one).
func (m *Mapping) TablesWithCounts() []string {
	l, err := m.Layout()
	if err != nil {
		return nil
	}
	out := m.TableNames()
	for _, cb := range l.countsBy {
		out = append(out, cb.Name)
	}
	for _, ti := range l.Tables {
		if ti.Filed != nil && ti.Filed.Counts != nil {
			out = append(out, ti.Filed.Counts.Name)
		}
		if ti.Totals != nil {
			out = append(out, ti.Totals.Name)
		}
	}
	return out
}

// ShardKeys returns the shard column of every table of the mapping, the
// distribution the DDL declares for a [Sharding] dialect:
//
//   - the tables placed with their string ([Mapping.Colocated]: strings,
//     their element and join tables, translations, votes and approvals)
//     by [ShardKeyColumn], the id of the string's master: a master
//     string, its duplicates and everything under them are on one shard;
//   - any other table with a key by its key (labels, users, files,
//     branches, TM segments, glossary terms and concepts);
//   - any other element table by its foreign key (TM records by their
//     segment), so that the elements of one object are on its shard.
func (m *Mapping) ShardKeys() map[string]string {
	l, err := m.Layout()
	if err != nil {
		return nil
	}
	co := m.Colocated()
	out := map[string]string{LoadMarker: "id", ProjectTable: "id"}
	for _, ti := range l.Tables {
		out[ti.Table.Name] = ti.ShardColumn()
	}
	for _, j := range l.Joins {
		out[j.Name] = j.From
	}
	for t := range co {
		if _, ok := out[t]; ok {
			out[t] = ShardKeyColumn
		}
	}
	return out
}

// Nullable reports whether column c of ti may hold NULL (the DDL writes
// every other column NOT NULL): a field's column the mapping marks Null,
// and a foreign key of an element table with several parents, where each
// row fills the key of its own parent alone.
func (ti *TableLayout) Nullable(c Column) bool {
	return c.Null || (c.GoName == "" && len(ti.FKs) > 1)
}

// ShardColumn is the column that places the table's rows on the shards
// of a sharded engine when the table is not placed with its string (see
// ShardKeys): its key, else its first foreign key.
func (ti *TableLayout) ShardColumn() string {
	switch {
	case ti.Table.Key != "":
		return ti.Table.Key
	case len(ti.FKs) > 0:
		return ti.FKs[0]
	case len(ti.PKey) > 0:
		return ti.PKey[0]
	}
	return ti.Columns[0].Name
}

// Prefixed is a copy of m whose tables (join tables included) are named
// prefix + their name. Objects that share a *Table still share one.
func (m *Mapping) Prefixed(prefix string) *Mapping {
	if prefix == "" {
		return m
	}
	out := &Mapping{Tables: make(map[string]*Table, len(m.Tables)), cat: m.cat}
	done := map[*Table]*Table{}
	for name, t := range m.Tables {
		c, ok := done[t]
		if !ok {
			cp := *t
			c = &cp
			c.Name = prefix + t.Name
			c.Children = make(map[string]*Child, len(t.Children))
			for f, ch := range t.Children {
				chc := *ch
				if chc.Through != "" {
					chc.Through = prefix + chc.Through
				}
				c.Children[f] = &chc
			}
			c.CountsBy = slices.Clone(t.CountsBy)
			for i := range c.CountsBy {
				c.CountsBy[i].Name = prefix + c.CountsBy[i].Name
			}
			if t.FiledCounts != nil {
				fc := *t.FiledCounts
				fc.Name = prefix + fc.Name
				c.FiledCounts = &fc
			}
			if t.Totals != "" {
				c.Totals = prefix + t.Totals
			}
			done[t] = c
		}
		out.Tables[name] = c
	}
	return out
}

// LoadMarker is the table in which a load records that it completed, and
// the layout it wrote (a store without it, or with another layout, is not
// queried).
const LoadMarker = "croql_load"

// ProjectTable is the table in which a load records the project's own
// record, as the data file's head has it: its name, source and target
// languages with their language objects, and its users (one row, id 1,
// the record as JSON in the column head). CroQL queries do not read it;
// croql serve --dsn serves the project from it.
const ProjectTable = "croql_project"
