package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/croql/croql/compile"
	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
)

// ReadObjects reads the root objects of context c whose keys are in ids
// (every root row when ids is nil), in ascending key order, as pointers to
// c.Root's Go type (e.g. *schema.SourceString), with their fields,
// referenced records (file, branch), and collections (and their elements'
// collections, e.g. a translation's votes and approvals). want, when
// non-nil, says which collection fields to read (by the object and field
// of the catalog); the others are left empty. Keys in ids that have no row
// are skipped.
//
// It is the loader's reverse, driven by the mapping's tables and columns,
// so that the evaluator (package eval) can run over objects that live in
// a database: a coordinator prefilters candidate ids in SQL, reads them
// with ReadObjects and evaluates the query exactly. Every statement is a
// plain SELECT of one table by its key or foreign key, or of a join table
// by its parent column, with the keys as bound parameters in IN lists of
// at most 1,000 (fewer when the dialect's MaxParams is lower), which a
// sharded engine routes by the column's vindex: per such list, one query
// per table.
//
// What the database keeps is what the loader stores: Go fields without a
// column (a comment's text, a translation's StringID) stay zero, an empty
// collection is nil, the elements of a collection with a foreign key come
// in their stored order (OrdinalColumn) and those of a join table
// (labels, translations) by key. An element or record that several
// parents share (a translation of a master and its duplicate, a label, a
// file) is read once: each parent gets a copy of the element, whose own
// collections share their backing arrays, and every string of one file
// points to the same *schema.File. A reference or a join-table row whose
// target row is missing is an error, as is a value the Go field cannot
// hold.
func ReadObjects(ctx context.Context, db *sql.DB, d compile.Dialect, m *mapping.Mapping, c *schema.Context, ids []int64, want func(obj *schema.Object, f *schema.Field) bool) ([]any, error) {
	if db == nil || d == nil || m == nil || c == nil || c.Root == nil {
		return nil, errors.New("store: ReadObjects needs a database, a dialect, a mapping and a context")
	}
	r, err := newReader(ctx, db, d, m, want)
	if err != nil {
		return nil, err
	}
	p, err := r.plan(c.Root)
	if err != nil {
		return nil, err
	}
	if p.key < 0 {
		return nil, fmt.Errorf("store: table %s of context %s has no key", p.ti.Table.Name, c.Name)
	}
	var keys []int64
	if ids == nil {
		rows, err := r.query(p, "", nil, r.order(p, ""), -1)
		if err != nil {
			return nil, err
		}
		if err := r.remember(p, rows); err != nil {
			return nil, err
		}
		if err := r.complete(p, rows, 0); err != nil {
			return nil, err
		}
		for _, row := range rows {
			keys = append(keys, row.key)
		}
	} else {
		keys = uniqueSorted(ids)
		if _, err := r.keyed(p, keys, 0); err != nil {
			return nil, err
		}
	}
	got := r.cache[p.obj]
	out := make([]any, 0, len(keys))
	for _, k := range keys {
		if v, ok := got[k]; ok {
			out = append(out, v.Interface())
		}
	}
	return out, nil
}

// ReadUsers reads the users table (the catalog's user object) in key order.
func ReadUsers(ctx context.Context, db *sql.DB, d compile.Dialect, m *mapping.Mapping) ([]schema.UserRef, error) {
	if db == nil || d == nil || m == nil {
		return nil, errors.New("store: ReadUsers needs a database, a dialect and a mapping")
	}
	r, err := newReader(ctx, db, d, m, nil)
	if err != nil {
		return nil, err
	}
	if m.Catalog().UserObj == nil {
		return nil, errors.New("store: the catalog has no user object")
	}
	p, err := r.plan(m.Catalog().UserObj)
	if err != nil {
		return nil, err
	}
	if p.typ != reflect.TypeFor[schema.UserRef]() {
		return nil, fmt.Errorf("store: the catalog's user object is a %s, not a schema.UserRef", p.typ)
	}
	rows, err := r.query(p, "", nil, r.order(p, ""), -1)
	if err != nil {
		return nil, err
	}
	if err := r.complete(p, rows, 0); err != nil {
		return nil, err
	}
	out := make([]schema.UserRef, len(rows))
	for i, row := range rows {
		out[i] = *row.ptr.Interface().(*schema.UserRef)
	}
	return out, nil
}

// maxReadDepth bounds how deep objects nest (strings, translations, votes
// is 3), against a catalog whose objects contain themselves.
const maxReadDepth = 16

// maxInList is the most keys of one IN list.
const maxInList = 1000

// reader reads the objects of one ReadObjects call.
type reader struct {
	ctx  context.Context
	db   *sql.DB
	d    compile.Dialect
	m    *mapping.Mapping
	l    *mapping.Layout
	want func(*schema.Object, *schema.Field) bool
	// chunk is the most keys of one statement.
	chunk int
	plans map[*schema.Object]*readPlan
	// cache holds the rows of keyed tables read so far, by object and key,
	// as pointers to their Go values: a shared element or record is read
	// once.
	cache map[*schema.Object]map[int64]reflect.Value
}

func newReader(ctx context.Context, db *sql.DB, d compile.Dialect, m *mapping.Mapping, want func(*schema.Object, *schema.Field) bool) (*reader, error) {
	l, err := m.Layout()
	if err != nil {
		return nil, err
	}
	return &reader{ctx: ctx, db: db, d: d, m: m, l: l, want: want,
		chunk: max(1, min(maxInList, d.MaxParams())),
		plans: map[*schema.Object]*readPlan{}, cache: map[*schema.Object]map[int64]reflect.Value{}}, nil
}

// readPlan is how the rows of one object's table become Go values.
type readPlan struct {
	obj *schema.Object
	ti  *mapping.TableLayout
	typ reflect.Type
	// fields are the Go field indexes of ti.Columns (nil for a column no Go
	// field holds: a foreign key, the ordinal, a reference).
	fields [][]int
	// key and ordinal are the indexes in ti.Columns of the table's key and
	// of OrdinalColumn, or -1.
	key, ordinal int
	refs         []readRef
	colls        []readColl
}

// readRef is a Record column: the key of the row its Go pointer field
// points to.
type readRef struct {
	col   int
	field []int
	obj   *schema.Object
}

// readColl is a collection field to fill.
type readColl struct {
	f     *schema.Field
	field []int
	child *mapping.Child
	elem  *schema.Object
}

// plan returns the plan of obj, built once.
func (r *reader) plan(obj *schema.Object) (*readPlan, error) {
	if p, ok := r.plans[obj]; ok {
		return p, nil
	}
	t, err := r.m.Table(obj)
	if err != nil {
		return nil, err
	}
	ti := r.l.Of(t)
	if ti == nil || obj.GoType == nil || obj.GoType.Kind() != reflect.Struct {
		return nil, fmt.Errorf("store: %s has no table or no Go struct type", obj.Name)
	}
	p := &readPlan{obj: obj, ti: ti, typ: obj.GoType, fields: make([][]int, len(ti.Columns)), key: -1, ordinal: -1}
	for i, c := range ti.Columns {
		switch {
		case c.Ordinal:
			p.ordinal = i
			continue
		case c.GoName == "":
			continue
		}
		if c.Name == t.Key {
			p.key = i
		}
		sf, ok := p.typ.FieldByName(c.GoName)
		if !ok {
			return nil, fmt.Errorf("store: table %s: %s has no Go field %s", t.Name, p.typ, c.GoName)
		}
		if !c.Ref {
			p.fields[i] = sf.Index
			continue
		}
		if sf.Type.Kind() != reflect.Pointer {
			return nil, fmt.Errorf("store: table %s: Go field %s.%s of a reference is a %s, not a pointer", t.Name, p.typ, c.GoName, sf.Type)
		}
		ro := r.objectOf(sf.Type.Elem())
		if ro == nil {
			return nil, fmt.Errorf("store: table %s: no object of the catalog is a %s", t.Name, sf.Type.Elem())
		}
		p.refs = append(p.refs, readRef{col: i, field: sf.Index, obj: ro})
	}
	for _, f := range obj.Fields {
		if f.Type.Kind != schema.Collection || f.Type.Obj == nil || (r.want != nil && !r.want(obj, f)) {
			continue
		}
		sf, ok := p.typ.FieldByName(f.GoName)
		if !ok || sf.Type.Kind() != reflect.Slice || sf.Type.Elem() != f.Type.Obj.GoType {
			return nil, fmt.Errorf("store: table %s: Go field %s.%s is not a slice of %s", t.Name, p.typ, f.GoName, f.Type.Obj.GoType)
		}
		p.colls = append(p.colls, readColl{f: f, field: sf.Index, child: t.Children[f.Name], elem: f.Type.Obj})
	}
	r.plans[obj] = p
	return p, nil
}

// objectOf is the catalog object of Go type t (a context's root first, as
// the loader finds tables).
func (r *reader) objectOf(t reflect.Type) *schema.Object {
	return objectOfGo(r.m.Catalog(), t)
}

// order is the ORDER BY columns of a read of p's table: by the foreign key
// fk when set, then by OrdinalColumn, else by the key.
func (r *reader) order(p *readPlan, fk string) []string {
	var out []string
	if fk != "" {
		out = append(out, fk)
	}
	switch {
	case p.ordinal >= 0 && fk != "":
		out = append(out, mapping.OrdinalColumn)
	case p.key >= 0:
		out = append(out, p.ti.Table.Key)
	}
	return out
}

// readRow is one row read: a pointer to its new Go value, its key, the
// parent key of the column it was read by, and its references (nil for
// NULL).
type readRow struct {
	ptr  reflect.Value
	key  int64
	fk   int64
	refs []*int64
}

// query reads the rows of p's table whose column where is one of keys
// (every row when where is empty), ordered by order, and decodes them;
// fkCol is the index in p.ti.Columns of the column where (-1 when it is not
// a foreign key). keys must not exceed r.chunk.
func (r *reader) query(p *readPlan, where string, keys []int64, order []string, fkCol int) ([]readRow, error) {
	table := p.ti.Table.Name
	var b strings.Builder
	b.WriteString("SELECT ")
	for i, c := range p.ti.Columns {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(r.d.Quote(c.Name))
	}
	b.WriteString(" FROM ")
	b.WriteString(r.d.Quote(table))
	args := r.in(&b, where, keys)
	if len(order) > 0 {
		b.WriteString(" ORDER BY ")
		for i, c := range order {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(r.d.Quote(c))
		}
	}
	rows, err := r.db.QueryContext(r.ctx, b.String(), args...)
	if err != nil {
		return nil, fmt.Errorf("store: reading %s: %w", table, err)
	}
	defer rows.Close()
	raw := make([]any, len(p.ti.Columns))
	dest := make([]any, len(raw))
	for i := range raw {
		dest[i] = &raw[i]
	}
	var out []readRow
	for rows.Next() {
		clear(raw)
		if err := rows.Scan(dest...); err != nil {
			return nil, fmt.Errorf("store: reading %s: %w", table, err)
		}
		row, err := r.decode(p, raw, fkCol)
		if err != nil {
			return nil, fmt.Errorf("store: reading %s: %w", table, err)
		}
		out = append(out, row)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: reading %s: %w", table, err)
	}
	return out, nil
}

// in writes " WHERE col IN (params)" for keys (nothing when col is empty)
// and returns the arguments.
func (r *reader) in(b *strings.Builder, col string, keys []int64) []any {
	if col == "" {
		return nil
	}
	list, args := compile.KeyList(r.d, make([]any, 0, len(keys)), keys)
	b.WriteString(" WHERE " + r.d.Quote(col) + " IN (" + list + ")")
	return args
}

// decode turns the values of one row into a new Go value of p's type.
func (r *reader) decode(p *readPlan, raw []any, fkCol int) (readRow, error) {
	row := readRow{ptr: reflect.New(p.typ)}
	v := row.ptr.Elem()
	for i, c := range p.ti.Columns {
		switch {
		case i == fkCol:
			k, err := readInt(raw[i], c)
			if err != nil {
				return row, err
			}
			row.fk = k
			continue
		case c.Ref:
			x, err := readValue(raw[i], schema.Int)
			if err != nil {
				return row, fmt.Errorf("column %s: %w", c.Name, err)
			}
			var k *int64
			if x != nil {
				n := x.(int64)
				k = &n
			}
			row.refs = append(row.refs, k)
			continue
		case p.fields[i] == nil:
			continue
		}
		if i == p.key {
			k, err := readInt(raw[i], c)
			if err != nil {
				return row, err
			}
			row.key = k
		}
		if err := decodeValue(raw[i], c, v.FieldByIndex(p.fields[i]), p.typ); err != nil {
			return row, err
		}
	}
	return row, nil
}

// readInt reads a key or foreign key column, never NULL.
func readInt(raw any, c mapping.Column) (int64, error) {
	x, err := readValue(raw, schema.Int)
	if err != nil {
		return 0, fmt.Errorf("column %s: %w", c.Name, err)
	}
	k, ok := x.(int64)
	if !ok {
		return 0, fmt.Errorf("column %s is NULL", c.Name)
	}
	return k, nil
}

// readValue converts a value a driver returned for a column of kind k
// into nil, bool, int64, float64 or string. MySQL returns text as []byte,
// and over its text protocol numbers too; SQLite and MySQL return
// booleans as integers.
func readValue(raw any, k schema.Kind) (any, error) {
	if raw == nil {
		return nil, nil
	}
	if bs, ok := raw.([]byte); ok {
		raw = string(bs)
	}
	// The driver's own value when it is the one wanted: no new box.
	switch raw.(type) {
	case bool:
		if k == schema.Bool {
			return raw, nil
		}
	case int64:
		if k == schema.Int || k == schema.Datetime || k == schema.User || k == schema.Record {
			return raw, nil
		}
	case string:
		if k == schema.String || k == schema.Language {
			return raw, nil
		}
	}
	switch k {
	case schema.Bool:
		switch x := raw.(type) {
		case bool:
			return x, nil
		case int64:
			return x != 0, nil
		case string:
			switch strings.ToLower(x) {
			case "1", "t", "true":
				return true, nil
			case "0", "f", "false":
				return false, nil
			}
		}
	case schema.Int, schema.Datetime, schema.User, schema.Record:
		switch x := raw.(type) {
		case int64:
			return x, nil
		case int32:
			return int64(x), nil
		case uint64:
			if x <= math.MaxInt64 {
				return int64(x), nil
			}
		case float64:
			if x == math.Trunc(x) && x >= math.MinInt64 && x < math.MaxInt64 {
				return int64(x), nil
			}
		case string:
			if n, err := strconv.ParseInt(x, 10, 64); err == nil {
				return n, nil
			}
		}
	case schema.Float:
		switch x := raw.(type) {
		case float64:
			return x, nil
		case float32:
			return float64(x), nil
		case int64:
			return float64(x), nil
		case string:
			if f, err := strconv.ParseFloat(x, 64); err == nil {
				return f, nil
			}
		}
	case schema.String, schema.Language:
		if s, ok := raw.(string); ok {
			return s, nil
		}
	default:
		return nil, fmt.Errorf("no value of kind %s is read", k)
	}
	return nil, fmt.Errorf("a %T (%.40v) is not a %s", raw, raw, k)
}

// setField stores x (from readValue) in fv: a nil pointer for NULL, else
// the value (through a new pointer for a pointer field). NULL in a
// non-pointer field is its zero value where the column is nullable (a
// Stored column a load left empty) and an error elsewhere.
func setField(fv reflect.Value, x any, nullable bool) error {
	if x == nil {
		if fv.Kind() != reflect.Pointer && !nullable {
			return errors.New("NULL in a column that is not nullable")
		}
		fv.SetZero()
		return nil
	}
	if fv.Kind() == reflect.Pointer {
		p := reflect.New(fv.Type().Elem())
		if err := setValue(p.Elem(), x); err != nil {
			return err
		}
		fv.Set(p)
		return nil
	}
	return setValue(fv, x)
}

func setValue(fv reflect.Value, x any) error {
	switch fv.Kind() {
	case reflect.Bool:
		if b, ok := x.(bool); ok {
			fv.SetBool(b)
			return nil
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if n, ok := x.(int64); ok {
			if fv.OverflowInt(n) {
				return fmt.Errorf("%d overflows a %s", n, fv.Type())
			}
			fv.SetInt(n)
			return nil
		}
	case reflect.Float32, reflect.Float64:
		if f, ok := x.(float64); ok {
			fv.SetFloat(f)
			return nil
		}
	case reflect.String:
		if s, ok := x.(string); ok {
			fv.SetString(s)
			return nil
		}
	}
	return fmt.Errorf("a %T does not go into a %s", x, fv.Type())
}

// remember puts rows of p's keyed table in the cache.
func (r *reader) remember(p *readPlan, rows []readRow) error {
	got := r.cache[p.obj]
	if got == nil {
		got = map[int64]reflect.Value{}
		r.cache[p.obj] = got
	}
	for _, row := range rows {
		if _, dup := got[row.key]; dup {
			return fmt.Errorf("store: reading %s: two rows of key %d", p.ti.Table.Name, row.key)
		}
		got[row.key] = row.ptr
	}
	return nil
}

// keyed reads the rows of p's keyed table with the given keys (sorted,
// unique) that were not read before, with their records and collections,
// and returns every row read of the table by key.
func (r *reader) keyed(p *readPlan, keys []int64, depth int) (map[int64]reflect.Value, error) {
	got := r.cache[p.obj]
	var missing []int64
	for _, k := range keys {
		if _, ok := got[k]; !ok {
			missing = append(missing, k)
		}
	}
	var rows []readRow
	for chunk := range slices.Chunk(missing, r.chunk) {
		rs, err := r.query(p, p.ti.Table.Key, chunk, r.order(p, ""), -1)
		if err != nil {
			return nil, err
		}
		rows = append(rows, rs...)
	}
	// Remembered before they are complete, so that a reference back to
	// them (a catalog with cycles) ends.
	if err := r.remember(p, rows); err != nil {
		return nil, err
	}
	if err := r.complete(p, rows, depth); err != nil {
		return nil, err
	}
	return r.cache[p.obj], nil
}

// complete fills the records and collections of rows of p's table.
func (r *reader) complete(p *readPlan, rows []readRow, depth int) error {
	if len(rows) == 0 || (len(p.refs) == 0 && len(p.colls) == 0) {
		return nil
	}
	if depth > maxReadDepth {
		return fmt.Errorf("store: reading %s: objects nest deeper than %d", p.ti.Table.Name, maxReadDepth)
	}
	for j, ref := range p.refs {
		if err := r.fillRef(p, ref, j, rows, depth); err != nil {
			return err
		}
	}
	if len(p.colls) == 0 {
		return nil
	}
	if p.key < 0 {
		return fmt.Errorf("store: reading %s: a table with collections has no key", p.ti.Table.Name)
	}
	parents := make([]int64, len(rows))
	for i, row := range rows {
		parents[i] = row.key
	}
	parents = uniqueSorted(parents)
	for _, rc := range p.colls {
		var err error
		if rc.child == nil {
			err = fmt.Errorf("store: table %s has no child entry for `%s`", p.ti.Table.Name, rc.f.Name)
		} else if rc.child.Through != "" {
			err = r.fillThrough(p, rc, rows, parents, depth)
		} else {
			err = r.fillFK(p, rc, rows, parents, depth)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// fillRef points the reference field ref (the j-th of p) of each row to
// its record.
func (r *reader) fillRef(p *readPlan, ref readRef, j int, rows []readRow, depth int) error {
	rp, err := r.plan(ref.obj)
	if err != nil {
		return err
	}
	if rp.key < 0 {
		return fmt.Errorf("store: table %s, referred to by %s, has no key", rp.ti.Table.Name, p.ti.Table.Name)
	}
	var keys []int64
	for _, row := range rows {
		if k := row.refs[j]; k != nil {
			keys = append(keys, *k)
		}
	}
	if len(keys) == 0 {
		return nil
	}
	got, err := r.keyed(rp, uniqueSorted(keys), depth+1)
	if err != nil {
		return err
	}
	for _, row := range rows {
		k := row.refs[j]
		if k == nil {
			continue
		}
		v, ok := got[*k]
		if !ok {
			return fmt.Errorf("store: reading %s: column %s refers to key %d of %s, which has no row", p.ti.Table.Name, p.ti.Columns[ref.col].Name, *k, rp.ti.Table.Name)
		}
		row.ptr.Elem().FieldByIndex(ref.field).Set(v)
	}
	return nil
}

// fillFK fills collection rc of rows from the element table's rows whose
// foreign key holds a parent's key, in the order of OrdinalColumn.
func (r *reader) fillFK(p *readPlan, rc readColl, rows []readRow, parents []int64, depth int) error {
	ep, err := r.plan(rc.elem)
	if err != nil {
		return err
	}
	fkCol := slices.IndexFunc(ep.ti.Columns, func(c mapping.Column) bool { return c.Name == rc.child.FK && c.GoName == "" })
	if fkCol < 0 {
		return fmt.Errorf("store: table %s has no foreign key %s", ep.ti.Table.Name, rc.child.FK)
	}
	var elems []readRow
	for chunk := range slices.Chunk(parents, r.chunk) {
		rs, err := r.query(ep, rc.child.FK, chunk, r.order(ep, rc.child.FK), fkCol)
		if err != nil {
			return err
		}
		elems = append(elems, rs...)
	}
	if err := r.complete(ep, elems, depth+1); err != nil {
		return err
	}
	byParent := map[int64][]reflect.Value{}
	for _, e := range elems {
		byParent[e.fk] = append(byParent[e.fk], e.ptr.Elem())
	}
	setSlices(rows, rc, byParent)
	return nil
}

// fillThrough fills collection rc of rows through its join table: the
// elements each parent lists, by key.
func (r *reader) fillThrough(p *readPlan, rc readColl, rows []readRow, parents []int64, depth int) error {
	ep, err := r.plan(rc.elem)
	if err != nil {
		return err
	}
	if ep.key < 0 {
		return fmt.Errorf("store: `%s` of %s goes through %s, but table %s has no key", rc.f.Name, p.obj.Name, rc.child.Through, ep.ti.Table.Name)
	}
	links := map[int64][]int64{}
	var all []int64
	for chunk := range slices.Chunk(parents, r.chunk) {
		if err := r.links(rc.child, chunk, links, &all); err != nil {
			return err
		}
	}
	got, err := r.keyed(ep, uniqueSorted(all), depth+1)
	if err != nil {
		return err
	}
	byParent := make(map[int64][]reflect.Value, len(links))
	for parent, keys := range links {
		slices.Sort(keys)
		vals := make([]reflect.Value, len(keys))
		for i, k := range keys {
			v, ok := got[k]
			if !ok {
				return fmt.Errorf("store: reading %s: %s %d lists key %d of %s, which has no row", rc.child.Through, rc.child.From, parent, k, ep.ti.Table.Name)
			}
			vals[i] = v.Elem()
		}
		byParent[parent] = vals
	}
	setSlices(rows, rc, byParent)
	return nil
}

// links reads the rows of a join table whose From column is one of
// parents into links (parent to element keys) and all.
func (r *reader) links(ch *mapping.Child, parents []int64, links map[int64][]int64, all *[]int64) error {
	var b strings.Builder
	b.WriteString("SELECT " + r.d.Quote(ch.From) + ", " + r.d.Quote(ch.To) + " FROM " + r.d.Quote(ch.Through))
	args := r.in(&b, ch.From, parents)
	rows, err := r.db.QueryContext(r.ctx, b.String(), args...)
	if err != nil {
		return fmt.Errorf("store: reading %s: %w", ch.Through, err)
	}
	defer rows.Close()
	var raw [2]any
	for rows.Next() {
		if err := rows.Scan(&raw[0], &raw[1]); err != nil {
			return fmt.Errorf("store: reading %s: %w", ch.Through, err)
		}
		from, err := readInt(raw[0], mapping.Column{Name: ch.From})
		if err != nil {
			return fmt.Errorf("store: reading %s: %w", ch.Through, err)
		}
		to, err := readInt(raw[1], mapping.Column{Name: ch.To})
		if err != nil {
			return fmt.Errorf("store: reading %s: %w", ch.Through, err)
		}
		links[from] = append(links[from], to)
		*all = append(*all, to)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("store: reading %s: %w", ch.Through, err)
	}
	return nil
}

// setSlices sets collection rc of each row to a copy of its elements (nil
// when it has none).
func setSlices(rows []readRow, rc readColl, byParent map[int64][]reflect.Value) {
	for _, row := range rows {
		elems := byParent[row.key]
		if len(elems) == 0 {
			continue
		}
		fv := row.ptr.Elem().FieldByIndex(rc.field)
		s := reflect.MakeSlice(fv.Type(), len(elems), len(elems))
		for i, e := range elems {
			s.Index(i).Set(e)
		}
		fv.Set(s)
	}
}

// uniqueSorted returns keys sorted, without repeats (a new slice).
func uniqueSorted(keys []int64) []int64 {
	out := slices.Clone(keys)
	slices.Sort(out)
	return slices.Compact(out)
}
