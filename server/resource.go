package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/croql/croql"
	"github.com/croql/croql/compile"
	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
)

// kind is how a column's value is written in a response.
type kind int

const (
	kInt    kind = iota
	kString      // text
	kBool        // boolean (0/1 in SQLite and MySQL)
	kTime        // Unix seconds, written as ISO 8601 with offset
)

// column is one scalar field of a response object: its JSON name, where
// it is stored, and how it is written.
type column struct {
	json string
	// sql is the column expression over the root alias (t0."text").
	sql      string
	kind     kind
	nullable bool
	// zero is written instead of null (the platform's maxLength is 0 for
	// no limit).
	zero bool
	// orderable columns may be named in orderBy.
	orderable bool
}

// resource is one list endpoint: the context its croql is checked in and
// the columns of its objects.
type resource struct {
	context string
	// table and key are the root table and its key column, quoted.
	table, key string
	cols       []column
	// language is the root's language column (translations: the
	// endpoint's languageId filters on it).
	language string
	// records: the TM segment's records, read by a second query.
	records *recordsQuery
	// render builds the response object of one row (values in cols order).
	render func(p *Project, v []any) map[string]any
	// links (translations) selects translation id, string id and the
	// string's is-duplicate of the ids in the IN list appended to it.
	links string
	// walk (translations) is the strings table and the join table that
	// lists each string's translations, for reading the list in string
	// order by index (nil when the mapping has no join table).
	walk *strWalk
	// filed (translations) is the column that holds the string a
	// translation is filed under (mapping.Table.Filed, the value of
	// stringId kept on the row), "" when the mapping has none.
	filed string
	// filedCount (translations), when the mapping keeps how many strings
	// each language's translations are filed under
	// (mapping.Table.FiledCounts), is the statement that reads a
	// language's count (its parameter); "" otherwise.
	filedCount string
}

// strWalk names, quoted, the strings table and its key, and the join
// table from a string (from) to its translations (to).
type strWalk struct {
	// typ is the strings' column of their type, which the walk reads
	// beside the key (the page's rendering needs it).
	strings, key, typ, join, from, to string
}

type recordsQuery struct {
	// sql selects fk, then the record columns, of the segments listed in
	// the IN list appended to it; order is the records' key.
	sql, order string
	cols       []column
}

// resources builds the four list endpoints' descriptions for dialect d
// over mapping m. Identifiers come only from the mapping, quoted.
func resources(d compile.Dialect, m *mapping.Mapping) (map[string]*resource, error) {
	l, err := m.Layout()
	if err != nil {
		return nil, err
	}
	b := &resBuilder{d: d, m: m, cat: m.Catalog(), layout: l}
	out := map[string]*resource{}
	for _, ctx := range []string{croql.Strings, croql.Translations, croql.TM, croql.Glossary} {
		r, err := b.build(ctx)
		if err != nil {
			return nil, err
		}
		out[ctx] = r
	}
	return out, nil
}

type resBuilder struct {
	d      compile.Dialect
	m      *mapping.Mapping
	cat    *schema.Catalog
	layout *mapping.Layout
	err    error
}

// apiCols are the columns the API shows of the table of the objects of Go
// type t, in the mapping's layout order: every column with an API name
// (mapping.Column.API, the Go field's api tag), written by its kind, null
// where its Go field is a pointer (or the zero value: APIZero).
func (b *resBuilder) apiCols(t reflect.Type, orderable bool) []column {
	ti := b.layout.Of(b.table(t))
	if ti == nil {
		if b.err == nil {
			b.err = fmt.Errorf("server: the mapping's layout has no table for %s", t.Name())
		}
		return nil
	}
	var out []column
	for _, c := range ti.Columns {
		if c.API == "" {
			continue
		}
		sf, _ := t.FieldByName(c.GoName)
		out = append(out, column{json: c.API, sql: b.q(c.Name), kind: kindOf(c.Kind), nullable: sf.Type.Kind() == reflect.Pointer,
			zero: c.APIZero, orderable: orderable})
	}
	return out
}

// kindOf is how a value of a column of kind k is written.
func kindOf(k schema.Kind) kind {
	switch k {
	case schema.Bool:
		return kBool
	case schema.Datetime:
		return kTime
	case schema.String, schema.Language:
		return kString
	}
	return kInt
}

const alias = "t0"

// col is the column of Go field goName of the objects of Go type t (any
// object of that type in the catalog: the translations context's root
// shares its table with a string's translation, which adds language).
func (b *resBuilder) col(t reflect.Type, goName string) string {
	objs := append([]*schema.Object{}, b.cat.Objects...)
	for _, c := range b.cat.Contexts {
		objs = append(objs, c.Root)
	}
	for _, o := range objs {
		if o.GoType != t {
			continue
		}
		tab, err := b.m.Table(o)
		if err != nil {
			continue
		}
		if goName == "ID" && tab.Key != "" {
			return tab.Key
		}
		for _, f := range o.Fields {
			if f.GoName == goName {
				if c := tab.Columns[f.Name]; c != "" {
					return c
				}
			}
		}
		if c := tab.Stored[goName]; c != "" {
			return c
		}
	}
	if b.err == nil {
		b.err = fmt.Errorf("server: the mapping has no column for %s.%s", t.Name(), goName)
	}
	return ""
}

func (b *resBuilder) q(c string) string { return alias + "." + b.d.Quote(c) }

func (b *resBuilder) table(t reflect.Type) *mapping.Table {
	for _, o := range b.cat.Objects {
		if o.GoType == t {
			if tab, err := b.m.Table(o); err == nil {
				return tab
			}
		}
	}
	for _, c := range b.cat.Contexts {
		if c.Root.GoType == t {
			if tab, err := b.m.Table(c.Root); err == nil {
				return tab
			}
		}
	}
	if b.err == nil {
		b.err = fmt.Errorf("server: the mapping has no table for %s", t.Name())
	}
	return &mapping.Table{}
}

func (b *resBuilder) build(ctxName string) (*resource, error) {
	ctx, ok := b.cat.Context(ctxName)
	if !ok {
		return nil, fmt.Errorf("server: no context %q", ctxName)
	}
	root, err := b.m.Table(ctx.Root)
	if err != nil {
		return nil, err
	}
	if root.Key == "" {
		return nil, fmt.Errorf("server: table %s has no key", root.Name)
	}
	r := &resource{context: ctxName, table: b.d.Quote(root.Name) + " AS " + alias, key: b.q(root.Key)}
	switch ctxName {
	case croql.Strings:
		b.strings(r)
	case croql.Translations:
		b.translations(r)
	case croql.TM:
		b.segments(r, ctx, root)
	case croql.Glossary:
		b.terms(r)
	}
	if b.err != nil {
		return nil, b.err
	}
	return r, nil
}

// strings describes the strings list.
func (b *resBuilder) strings(r *resource) {
	r.cols = b.apiCols(reflect.TypeFor[schema.SourceString](), true)
	r.render = func(p *Project, v []any) map[string]any { return stringShape(p, r.object(v)) }
}

// translations describes the translations list's rows (one per
// translation; the list groups them by string).
func (b *resBuilder) translations(r *resource) {
	stringID := column{json: "stringId", sql: b.stringOf(r), kind: kInt, nullable: true, orderable: true}
	r.cols = append(b.apiCols(reflect.TypeFor[schema.Translation](), true), stringID)
	r.language = r.sqlOf("languageId")
	r.render = func(p *Project, v []any) map[string]any {
		o := r.object(v)
		o["contentType"] = "text/plain"
		if id, ok := o["userId"].(int64); ok {
			o["user"] = map[string]any{"id": id, "username": p.Logins[id]}
		}
		delete(o, "userId")
		return o
	}
}

// stringOf is the expression of the string a translation was made for:
// the master among the strings that list it (a duplicate shares its
// master's translations), the lowest id among equals. It sets r.links,
// the same choice's rows for a sharded engine.
func (b *resBuilder) stringOf(r *resource) string {
	st := reflect.TypeFor[schema.SourceString]()
	strTab := b.table(st)
	var ch *mapping.Child
	for _, o := range b.cat.Objects {
		if o.GoType != st {
			continue
		}
		for _, f := range o.Fields {
			if f.GoName == "Translations" {
				ch = strTab.Children[f.Name]
			}
		}
	}
	if ch == nil || ch.Through == "" {
		return "NULL"
	}
	d := b.d
	join := d.Quote(ch.Through) + " AS j JOIN " + d.Quote(strTab.Name) + " AS s ON s." + d.Quote(strTab.Key) + " = j." + d.Quote(ch.From)
	dup := "s." + d.Quote(b.col(st, "IsDuplicate"))
	r.walk = &strWalk{strings: d.Quote(strTab.Name), key: d.Quote(strTab.Key), typ: d.Quote(b.col(st, "Type")), join: d.Quote(ch.Through), from: d.Quote(ch.From), to: d.Quote(ch.To)}
	if ti := b.layout.Of(b.table(reflect.TypeFor[schema.Translation]())); ti != nil && ti.Filed != nil &&
		ti.Filed.Owner == strTab && ti.Filed.Child.Through == ch.Through && ti.Filed.Dup == b.col(st, "IsDuplicate") {
		r.filed = b.q(ti.Filed.Name)
		if fc := ti.Filed.Counts; fc != nil {
			if _, sharded := d.(compile.Sharding); !sharded {
				r.filedCount = "SELECT " + d.Quote(fc.Count) + " FROM " + d.Quote(fc.Name) + " WHERE " + d.Quote(fc.ByColumn) + " = " + d.Param(1, fc.ByKind)
			}
		}
	}
	r.links = "SELECT j." + d.Quote(ch.To) + ", j." + d.Quote(ch.From) + ", " + dup + " FROM " + join + " WHERE j." + d.Quote(ch.To) + " IN ("
	return "(SELECT j." + d.Quote(ch.From) + " FROM " + join + " WHERE j." + d.Quote(ch.To) + " = " + r.key +
		" ORDER BY " + dup + ", j." + d.Quote(ch.From) + d.Limit("1") + ")"
}

// segments describes the TM segments list and its records.
func (b *resBuilder) segments(r *resource, ctx *schema.Context, root *mapping.Table) {
	r.cols = b.apiCols(ctx.Root.GoType, true)
	rt := reflect.TypeFor[schema.TMRecord]()
	recTab := b.table(rt)
	var fk string
	for _, f := range ctx.Root.Fields {
		if f.GoName == "Records" {
			if ch := root.Children[f.Name]; ch != nil {
				fk = ch.FK
			}
		}
	}
	if fk == "" && b.err == nil {
		b.err = errors.New("server: the mapping has no foreign key for TM records")
	}
	rq := &recordsQuery{cols: b.apiCols(rt, false)}
	rq.order = b.q(b.col(rt, "ID"))
	sel := []string{b.q(fk)}
	for _, c := range rq.cols {
		sel = append(sel, c.sql)
	}
	rq.sql = "SELECT " + strings.Join(sel, ", ") + " FROM " + b.d.Quote(recTab.Name) + " AS " + alias + " WHERE " + b.q(fk) + " IN ("
	r.records = rq
	r.render = func(p *Project, v []any) map[string]any { return segmentShape(p, r.object(v)) }
}

// terms describes the glossary terms list.
func (b *resBuilder) terms(r *resource) {
	r.cols = b.apiCols(reflect.TypeFor[schema.GlossaryTerm](), true)
	r.render = func(p *Project, v []any) map[string]any { return termShape(p, r.object(v)) }
}

// selectList is the SELECT list of the root columns.
func (r *resource) selectList() string {
	parts := make([]string, len(r.cols))
	for i, c := range r.cols {
		parts[i] = c.sql
	}
	return strings.Join(parts, ", ")
}

// object writes the values of one row by column, with room for the
// keys a list adds (labelIds, records, ...).
func (r *resource) object(v []any) map[string]any { return rowObject(r.cols, v, 4) }

// rowObject writes the values v of a row of cols (in that order) as an
// object with room for extra keys more: a map sized for what it holds
// (a TM record's eight keys fit one group of a Go map; with room for
// four more it took two).
func rowObject(cols []column, v []any, extra int) map[string]any {
	o := make(map[string]any, len(cols)+extra)
	for i, c := range cols {
		o[c.json] = value(c, v[i])
	}
	return o
}

// sqlOf is the expression of the column named json, NULL when there is
// none.
func (r *resource) sqlOf(json string) string {
	for _, c := range r.cols {
		if c.json == json {
			return c.sql
		}
	}
	return "NULL"
}

// column returns the orderable column named json.
func (r *resource) column(json string) (column, bool) {
	for _, c := range r.cols {
		if c.json == json && c.orderable {
			return c, true
		}
	}
	return column{}, false
}

// orderable lists the names orderBy accepts.
func (r *resource) orderable() []string {
	var out []string
	for _, c := range r.cols {
		if c.orderable {
			out = append(out, c.json)
		}
	}
	return out
}

// TimeLayout is how datetimes are written: ISO 8601 with offset, as the
// platform's API writes them ("2024-01-31T23:59:59+00:00").
const TimeLayout = "2006-01-02T15:04:05-07:00"

// value converts a scanned value (the drivers differ: SQLite stores
// booleans as integers, MySQL may return text as bytes) to the column's
// JSON value.
func value(c column, v any) any {
	if v == nil {
		if c.zero {
			if c.kind == kString {
				return ""
			}
			return int64(0)
		}
		return nil
	}
	switch c.kind {
	case kString:
		switch x := v.(type) {
		case string:
			return x
		case []byte:
			return string(x)
		}
		return fmt.Sprint(v)
	case kBool:
		switch x := v.(type) {
		case bool:
			return x
		default:
			n, _ := toInt(v)
			return n != 0
		}
	case kTime:
		n, _ := toInt(v)
		return time.Unix(n, 0).UTC().Format(TimeLayout)
	default:
		n, _ := toInt(v)
		return n
	}
}

func toInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case int32:
		return int64(x), true
	case int:
		return int64(x), true
	case uint64:
		return int64(x), true
	case float64:
		return int64(x), true
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	case []byte:
		var n int64
		_, err := fmt.Sscan(string(x), &n)
		return n, err == nil
	case string:
		var n int64
		_, err := fmt.Sscan(x, &n)
		return n, err == nil
	}
	return 0, false
}

// The shapes of the lists' objects, completed from their rows: the
// platform's fields as its official clients declare them (see shapes.go
// for the other objects).

// apiStringType is the API's type of a string: the platform sends text,
// asset or icu; a plural string is text with hasPlurals.
func apiStringType(croqlType string) string {
	switch croqlType {
	case "icu", "asset":
		return croqlType
	}
	return "text"
}

// stringShape completes a string row (the columns of resource strings)
// into the platform's String object.
func stringShape(p *Project, o map[string]any) map[string]any {
	typ, _ := o["type"].(string)
	o["projectId"] = p.ID
	o["type"] = apiStringType(typ)
	o["hasPlurals"] = typ == "plural"
	o["isIcu"] = typ == "icu"
	if typ == "plural" {
		// The platform sends the forms as an object: every form an upload
		// kept (pluralForms), else the text as the "other" form.
		var forms map[string]any
		if f, _ := o["pluralForms"].(string); f == "" || json.Unmarshal([]byte(f), &forms) != nil || len(forms) == 0 {
			forms = map[string]any{"other": o["text"]}
		}
		o["text"] = forms
	}
	delete(o, "pluralForms")
	o["masterStringId"] = nil
	o["directoryId"] = nil
	o["revision"] = nil
	o["webUrl"] = ""
	o["fields"] = map[string]any{}
	if _, ok := o["labelIds"]; !ok {
		o["labelIds"] = []int64{}
	}
	return o
}

// apiTermValue spells a term's partOfSpeech, status, type or gender the
// API's way (an unknown value as it is).
func apiTermValue(field string, v any) any {
	s, ok := v.(string)
	if !ok {
		return v
	}
	if field == "partOfSpeech" {
		if w, ok := apiPartOfSpeech[s]; ok {
			return w
		}
		return s
	}
	if w, ok := apiTermWords[s]; ok {
		return w
	}
	return s
}

// termShape completes a term row into the platform's Term object.
func termShape(p *Project, o map[string]any) map[string]any {
	o["glossaryId"] = p.ID
	for _, f := range []string{"partOfSpeech", "status", "type", "gender"} {
		o[f] = apiTermValue(f, o[f])
	}
	return o
}

// segmentShape completes a TM segment row.
func segmentShape(_ *Project, o map[string]any) map[string]any {
	if _, ok := o["records"]; !ok {
		o["records"] = []any{}
	}
	return o
}

// userShape is the platform's short user object of a user id.
func userShape(p *Project, id int64) map[string]any {
	return map[string]any{"id": id, "username": p.Logins[id], "fullName": p.Logins[id], "avatarUrl": ""}
}

// Glossary term spellings: CroQL's values (the documentation's
// identifiers) and the API's words, as the clients declare them.
var (
	apiPartOfSpeech = map[string]string{
		"adj": "adjective", "adp": "adposition", "adv": "adverb", "aux": "auxiliary",
		"cconj": "coordinating conjunction", "det": "determiner", "intj": "interjection",
		"noun": "noun", "num": "numeral", "prt": "particle", "pron": "pronoun",
		"propn": "proper noun", "sconj": "subordinating conjunction", "verb": "verb",
		"sym": "other", "x": "other",
	}
	apiTermWords = map[string]string{
		"not_recommended": "not recommended", "full_form": "full form", "short_form": "short form",
	}
)
