package compile

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"unicode"

	"github.com/croql/croql/schema"
	"github.com/croql/croql/typecheck"
)

// Mapping says where every object of a catalog is stored: its table, the
// column of each field, and how the elements of each collection are found
// from their parent. Build one with [DefaultMapping] and change what a
// service names differently (see docs/sql.md):
//
//	m := compile.DefaultMapping(cat)
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
	// without being listed.
	Indexes [][]string
	// Unique lists unique indexes of the reference DDL.
	Unique [][]string
	// Stored maps Go fields that CroQL does not query, but that the
	// platform's API shows, to their columns (a TM record's language, the
	// date a translation was added). The loader fills them, the DDL
	// creates them nullable (rows written without them read as absent),
	// and no query reads them.
	Stored map[string]string
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
		return nil, errors.New("compile: no object")
	}
	t, ok := m.Tables[obj.Name]
	if !ok || t == nil {
		return nil, fmt.Errorf("compile: the mapping has no table for %s", obj.Name)
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
		return nil, "", fmt.Errorf("compile: the mapping has no column for `%s` of %s (table %s)", f.Name, obj.Name, t.Name)
	}
	return t, col, nil
}

// defaultTables are the table names DefaultMapping gives the catalog's
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

// DefaultMapping returns the reference mapping of cat: one table per Go
// type, snake_case columns named after the Go fields (`user_id` for a
// user, `file_id` for a file), a `<parent>_id` foreign key in element
// tables, and join tables for labels (string_labels) and translations
// (string_translations: a duplicate string lists the translations it
// shares with its master). docs/sql.md shows the resulting tables.
//
// DefaultMapping is computed from the struct definitions, not global
// state; the table-name defaults above are read-only.
func DefaultMapping(cat *schema.Catalog) *Mapping {
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
	if t := m.Tables["TM record"]; t != nil {
		t.Stored = map[string]string{"Language": "language_id"}
	}
	add("user", true, "login")
	add("source string", false, "identifier")
	add("source string", false, "added")
	add("source string", false, "updated")
	add("translation", false, "language")
	add("languages summary element", false, "language")
	add("glossary term", false, "concept_id")
	add("glossary term", false, "language")
	// Approvals by a user: the IN form of "approved by @user" starts from
	// that user's few approvals instead of reading every translation.
	add("approval", false, "user_id")
	return m
}

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

// column describes one physical column of a table, for the DDL and the
// loader.
type column struct {
	name string
	kind schema.Kind
	null bool
	// goName is the Go field the value comes from ("" for foreign keys,
	// which the loader fills from the parent).
	goName string
	// ref marks a Record column: the value is the key of a pointer field.
	ref bool
	// ordinal marks the OrdinalColumn of a keyless element table: the
	// element's position in its owner's collection.
	ordinal bool
}

// OrdinalColumn is the column that, with the owner's foreign key, is the
// primary key of an element table without a key of its own (comments,
// votes, approvals, ...): the element's position (0, 1, ...) in its
// owner's collection. Every table has a key, so that logical
// replication, CDC tools and Galera can update and delete its rows.
const OrdinalColumn = "ordinal"

// tableInfo is a table with the physical columns the mapping implies.
type tableInfo struct {
	t    *Table
	obj  *schema.Object
	cols []column
	// fks are the foreign key columns (filled from the parent's key).
	fks []string
	// refs are the Record reference columns (indexed).
	refs []string
	// pkey is the primary key: the table's Key, or for an element table
	// without one its foreign key and OrdinalColumn.
	pkey []string
}

// joinTable is a join table of the mapping.
type joinTable struct {
	name, from, to string
}

// layout is every table of a mapping with its physical columns, in a
// stable order (the catalog's), for the DDL and the loader.
type layout struct {
	tables []*tableInfo
	byT    map[*Table]*tableInfo
	joins  []joinTable
}

// layout checks the mapping against its catalog and lists the physical
// tables.
func (m *Mapping) layout() (*layout, error) {
	if m.cat == nil {
		return nil, errors.New("compile: the mapping has no catalog (build it with DefaultMapping)")
	}
	l := &layout{byT: map[*Table]*tableInfo{}}
	objs := slices.Clone(m.cat.Objects)
	for _, c := range m.cat.Contexts {
		if !slices.Contains(objs, c.Root) {
			objs = append(objs, c.Root)
		}
	}
	var errs []error
	for _, o := range objs {
		t, err := m.Table(o)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if err := checkIdent(t.Name); err != nil {
			errs = append(errs, fmt.Errorf("table of %s: %w", o.Name, err))
			continue
		}
		ti := l.byT[t]
		if ti == nil {
			ti = &tableInfo{t: t, obj: o}
			l.byT[t] = ti
			l.tables = append(l.tables, ti)
			if t.Key != "" {
				if err := checkIdent(t.Key); err != nil {
					errs = append(errs, fmt.Errorf("key of %s: %w", t.Name, err))
				}
				ti.cols = append(ti.cols, column{name: t.Key, kind: schema.Int, goName: "ID"})
			}
		}
		for _, f := range o.Fields {
			if f.Type.Kind == schema.Collection {
				if _, ok := t.Children[f.Name]; !ok {
					errs = append(errs, fmt.Errorf("compile: the mapping of %s has no child entry for collection `%s`", o.Name, f.Name))
				}
				continue
			}
			col, ok := t.Columns[f.Name]
			if !ok || col == "" {
				errs = append(errs, fmt.Errorf("compile: the mapping has no column for `%s` of %s (table %s)", f.Name, o.Name, t.Name))
				continue
			}
			if err := checkIdent(col); err != nil {
				errs = append(errs, fmt.Errorf("column of `%s` of %s: %w", f.Name, o.Name, err))
				continue
			}
			c := column{name: col, kind: f.Type.Kind, null: f.Nullable, goName: f.GoName}
			base := typecheck.DerivedBase(f) // the column of a derived bool holds its base
			switch {
			case base != nil:
				c.kind = base.Type.Kind
			case f.Type.Kind == schema.Record:
				c.kind, c.ref = schema.Int, true
			case f.Type.Kind == schema.User:
				c.kind = schema.Int
			}
			if err := ti.add(c); err != nil {
				errs = append(errs, err)
			}
			if c.ref && !slices.Contains(ti.refs, col) {
				ti.refs = append(ti.refs, col)
			}
		}
	}
	// Stored Go fields no query reads, in a stable order.
	for _, ti := range l.tables {
		if ti.obj == nil || ti.obj.GoType == nil {
			continue
		}
		for _, goName := range slices.Sorted(maps.Keys(ti.t.Stored)) {
			col := ti.t.Stored[goName]
			if err := checkIdent(col); err != nil {
				errs = append(errs, fmt.Errorf("stored column of %s.%s: %w", ti.t.Name, goName, err))
				continue
			}
			sf, ok := ti.obj.GoType.FieldByName(goName)
			if !ok {
				errs = append(errs, fmt.Errorf("compile: table %s stores %s, which %s does not have", ti.t.Name, goName, ti.obj.GoType))
				continue
			}
			kind, err := storedKind(sf.Type)
			if err != nil {
				errs = append(errs, fmt.Errorf("compile: table %s stores %s: %w", ti.t.Name, goName, err))
				continue
			}
			if err := ti.add(column{name: col, kind: kind, null: true, goName: goName}); err != nil {
				errs = append(errs, err)
			}
		}
	}
	// Children: foreign keys and join tables.
	for _, o := range objs {
		t := m.Tables[o.Name]
		if t == nil {
			continue
		}
		for _, f := range o.Fields {
			ch := t.Children[f.Name]
			if f.Type.Kind != schema.Collection || ch == nil || f.Type.Obj == nil {
				continue
			}
			et := m.Tables[f.Type.Obj.Name]
			if et == nil {
				continue // reported above
			}
			if ch.Through == "" && t.Key == "" {
				errs = append(errs, fmt.Errorf("compile: table %s has children (`%s`) but no key", t.Name, f.Name))
			}
			if ch.Through != "" {
				if et.Key == "" {
					errs = append(errs, fmt.Errorf("compile: `%s` of %s goes through %s, but table %s has no key", f.Name, o.Name, ch.Through, et.Name))
				}
				for _, id := range []string{ch.Through, ch.From, ch.To} {
					if err := checkIdent(id); err != nil {
						errs = append(errs, fmt.Errorf("join table of `%s` of %s: %w", f.Name, o.Name, err))
					}
				}
				j := joinTable{ch.Through, ch.From, ch.To}
				if !slices.Contains(l.joins, j) {
					l.joins = append(l.joins, j)
				}
				continue
			}
			if err := checkIdent(ch.FK); err != nil {
				errs = append(errs, fmt.Errorf("foreign key of `%s` of %s: %w", f.Name, o.Name, err))
				continue
			}
			eti := l.byT[et]
			if eti != nil && !slices.Contains(eti.fks, ch.FK) {
				eti.fks = append(eti.fks, ch.FK)
				if err := eti.add(column{name: ch.FK, kind: schema.Int}); err != nil {
					errs = append(errs, err)
				}
			}
		}
	}
	// Keys: the table's own, or owner plus ordinal.
	for _, ti := range l.tables {
		switch {
		case ti.t.Key != "":
			ti.pkey = []string{ti.t.Key}
		case len(ti.fks) == 1 && ti.obj != nil:
			if err := ti.add(column{name: OrdinalColumn, kind: schema.Int, ordinal: true}); err != nil {
				errs = append(errs, err)
			}
			ti.pkey = []string{ti.fks[0], OrdinalColumn}
		}
		// A table of a custom mapping with neither is left without a
		// primary key (the default mapping has none such).
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return l, nil
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
func (ti *tableInfo) add(c column) error {
	for _, x := range ti.cols {
		if x.name == c.name {
			if x.goName != c.goName || x.ordinal != c.ordinal || (x.kind != c.kind && !(x.goName == "" && c.goName == "")) {
				return fmt.Errorf("compile: column %s of table %s holds two different values (%s and %s)", c.name, ti.t.Name, orFK(x.goName), orFK(c.goName))
			}
			return nil
		}
	}
	ti.cols = append(ti.cols, c)
	return nil
}

func orFK(goName string) string {
	if goName == "" {
		return "a foreign key"
	}
	return "Go field " + goName
}

// checkIdent rejects identifiers no engine can hold.
func checkIdent(s string) error {
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
