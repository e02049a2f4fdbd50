package store

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/croql/croql/compile"
	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
)

// Rows is the row codec of the table that stores the catalog's Go type T
// (schema.SourceString, schema.Translation, schema.Label, schema.File,
// schema.LanguageSummary, ...): the columns the mapping's layout gives
// the table, a T turned into the values of one row and a row read back
// into a T. It is the logic the loader (Load) and the reader
// (ReadObjects) use, for a service that writes single rows of its own.
//
// A Rows is built with [RowsOf] over every column of the table; [Rows.Subset]
// narrows it to some columns (for an UPDATE of some fields, or a SELECT of
// a few). Column names come from the mapping only, and the statement
// builders bind every value. A Rows is read, never written, once built,
// so one value serves any number of goroutines.
type Rows[T any] struct {
	d  compile.Dialect
	ti *mapping.TableLayout
	// cols are the codec's columns (all of ti's, or a subset), names
	// the quoted-free names, fields the Go field index of each (nil for a
	// foreign key or the ordinal).
	cols   []mapping.Column
	names  []string
	fields [][]int
	typ    reflect.Type
	// shard is, on a sharded engine, the column mapping.ShardKeyColumn of
	// a table placed with its string (mapping.Colocated), nil elsewhere;
	// shardAt its index among cols, or -1.
	shard   *mapping.Column
	shardAt int
}

// Owner is what a row of an element table holds besides its Go fields:
// the key of the object whose collection it is in (the table's foreign
// key) and its position in that collection (mapping.OrdinalColumn).
// Tables with a key of their own ignore it. Shard is, on a sharded
// engine, the shard key of a row of a table placed with its string
// (mapping.ShardKeyColumn): the id of its string's master, which a
// writer gives every row of a string and of what is under it; other
// engines and tables ignore it.
type Owner struct {
	Key, Ordinal, Shard int64
}

// RowsOf returns the codec of the table that stores T in m, with d's
// quoting and placeholders. T must be the Go type of an object of m's
// catalog (a context's root, or an object); the error says so otherwise,
// or that the mapping does not check (see mapping.Mapping.Check).
func RowsOf[T any](d compile.Dialect, m *mapping.Mapping) (*Rows[T], error) {
	if d == nil || m == nil || m.Catalog() == nil {
		return nil, errors.New("store: RowsOf needs a dialect and a mapping with a catalog")
	}
	typ := reflect.TypeFor[T]()
	obj := objectOfGo(m.Catalog(), typ)
	if obj == nil {
		return nil, fmt.Errorf("store: no object of the catalog is a %s", typ)
	}
	l, err := m.Layout()
	if err != nil {
		return nil, err
	}
	t, err := m.Table(obj)
	if err != nil {
		return nil, err
	}
	ti := l.Of(t)
	if ti == nil {
		return nil, fmt.Errorf("store: the layout has no table %s", t.Name)
	}
	fields, err := goFieldIndexes(ti.Columns, typ)
	if err != nil {
		return nil, err
	}
	r := &Rows[T]{d: d, ti: ti, cols: ti.Columns, fields: fields, typ: typ, shardAt: -1}
	for _, c := range ti.Columns {
		r.names = append(r.names, c.Name)
	}
	if _, sharded := d.(compile.Sharding); sharded && m.Colocated()[t.Name] {
		r.shard = &mapping.Column{Name: mapping.ShardKeyColumn, Kind: schema.Int}
		r.cols = append(slices.Clip(r.cols), *r.shard)
		r.names = append(r.names, r.shard.Name)
		r.fields = append(r.fields, nil)
		r.shardAt = len(r.cols) - 1
	}
	return r, nil
}

// objectOfGo is the catalog object of Go type t: a context's root first,
// then the objects, as the loader and the reader find tables.
func objectOfGo(cat *schema.Catalog, t reflect.Type) *schema.Object {
	for _, c := range cat.Contexts {
		if c.Root != nil && c.Root.GoType == t {
			return c.Root
		}
	}
	for _, o := range cat.Objects {
		if o.GoType == t {
			return o
		}
	}
	return nil
}

// goFieldIndexes returns the index in Go type t of the field of each
// column (nil for a foreign key or the ordinal, which no Go field holds).
func goFieldIndexes(cols []mapping.Column, t reflect.Type) ([][]int, error) {
	out := make([][]int, len(cols))
	for i, c := range cols {
		if c.GoName == "" {
			continue
		}
		sf, ok := t.FieldByName(c.GoName)
		if !ok {
			return nil, fmt.Errorf("store: %s has no Go field %s", t, c.GoName)
		}
		if c.Ref && sf.Type.Kind() != reflect.Pointer {
			return nil, fmt.Errorf("store: Go field %s.%s of a reference is a %s, not a pointer", t, c.GoName, sf.Type)
		}
		out[i] = sf.Index
	}
	return out, nil
}

// Table is the table's name.
func (r *Rows[T]) Table() string { return r.ti.Table.Name }

// Layout is the table's layout (all its columns, its keys).
func (r *Rows[T]) Layout() *mapping.TableLayout { return r.ti }

// Columns are the codec's columns, in the order of the values of
// [Rows.Values]: on a sharded engine, a table placed with its string ends
// with mapping.ShardKeyColumn (see [Owner]).
func (r *Rows[T]) Columns() []string { return r.names }

// ShardColumn is mapping.ShardKeyColumn when the codec's table holds it
// (on a sharded engine, a table placed with its string), else "".
func (r *Rows[T]) ShardColumn() string {
	if r.shard == nil {
		return ""
	}
	return r.shard.Name
}

// Key is the table's key column ("" for an element table without one).
func (r *Rows[T]) Key() string { return r.ti.Table.Key }

// OwnerColumn is the table's foreign key, the column of Owner.Key (""
// for a table that is no collection's).
func (r *Rows[T]) OwnerColumn() string {
	if len(r.ti.FKs) == 0 {
		return ""
	}
	return r.ti.FKs[0]
}

// Column returns the column of the Go field that field points to in the
// T it is given: r.Column(func(s *schema.File) any { return &s.Name })
// is the column of File.Name. The field is named in Go, so a renamed or
// removed field does not compile; a field the table does not store is an
// error.
func (r *Rows[T]) Column(field func(*T) any) (string, error) {
	probe := new(T)
	p := reflect.ValueOf(field(probe))
	if p.Kind() != reflect.Pointer || p.IsNil() {
		return "", fmt.Errorf("store: the field of %s is not given as a pointer", r.typ)
	}
	off := p.Pointer() - reflect.ValueOf(probe).Pointer()
	for i, c := range r.ti.Columns {
		if c.GoName == "" {
			continue
		}
		sf, _ := r.typ.FieldByName(c.GoName)
		if fieldOffset(r.typ, sf.Index) == off && sf.Type == p.Type().Elem() {
			return r.ti.Columns[i].Name, nil
		}
	}
	return "", fmt.Errorf("store: table %s has no column for that field of %s", r.ti.Table.Name, r.typ)
}

// fieldOffset is the offset of the (possibly promoted) field at index in t.
func fieldOffset(t reflect.Type, index []int) uintptr {
	var off uintptr
	for _, i := range index {
		f := t.Field(i)
		off += f.Offset
		t = f.Type
	}
	return off
}

// Subset is the codec of some columns of the table, in the order given
// (names from [Rows.Columns], [Rows.Column], [Rows.Key], [Rows.OwnerColumn] or
// mapping.OrdinalColumn).
func (r *Rows[T]) Subset(cols ...string) (*Rows[T], error) {
	s := &Rows[T]{d: r.d, ti: r.ti, typ: r.typ, shard: r.shard, shardAt: -1}
	for _, name := range cols {
		if r.shard != nil && name == r.shard.Name {
			s.shardAt = len(s.cols)
			s.cols = append(s.cols, *r.shard)
			s.names = append(s.names, name)
			continue
		}
		i := slices.IndexFunc(r.ti.Columns, func(c mapping.Column) bool { return c.Name == name })
		if i < 0 {
			return nil, fmt.Errorf("store: table %s has no column %q", r.ti.Table.Name, name)
		}
		s.cols = append(s.cols, r.ti.Columns[i])
		s.names = append(s.names, name)
	}
	var err error
	s.fields, err = goFieldIndexes(s.cols, r.typ)
	return s, err
}

// Values appends the values of obj's row to dst, in the order of
// [Rows.Columns]: each Go field as the loader stores it (a nil pointer as
// NULL, a reference as the key of the record it points to, a string
// checked against the engine), the foreign key and ordinal from owner.
func (r *Rows[T]) Values(dst []any, obj *T, owner Owner) ([]any, error) {
	if obj == nil {
		return dst, fmt.Errorf("store: no %s to store", r.typ)
	}
	n := len(dst)
	dst = slices.Grow(dst, len(r.cols))[:n+len(r.cols)]
	err := encodeRow(r.d, r.cols, r.fields, reflect.ValueOf(obj).Elem(), dst[n:], r.OwnerColumn(), owner, refKey)
	if r.shardAt >= 0 {
		dst[n+r.shardAt] = owner.Shard
	}
	return dst, err
}

// refKey is the key of the record a reference field points to: its ID.
func refKey(fv reflect.Value) (int64, error) {
	id := fv.FieldByName("ID")
	if !id.IsValid() || !id.CanInt() {
		return 0, fmt.Errorf("store: a %s has no ID to refer to it by", fv.Type())
	}
	return id.Int(), nil
}

// encodeRow fills row (one value per column of cols) from v: the fields
// at fields, the foreign key fk from owner.Key, the ordinal from
// owner.Ordinal, and a reference through ref (given the record, it
// returns its key).
func encodeRow(d compile.Dialect, cols []mapping.Column, fields [][]int, v reflect.Value, row []any, fk string, owner Owner, ref func(reflect.Value) (int64, error)) error {
	for i, c := range cols {
		switch {
		case c.Ordinal:
			row[i] = owner.Ordinal
			continue
		case c.GoName == "":
			if fk == c.Name {
				row[i] = owner.Key
			}
			continue
		case c.Ref:
			fv := fieldAt(v, fields[i])
			if fv.IsNil() {
				row[i] = nil
				continue
			}
			k, err := ref(fv.Elem())
			if err != nil {
				return err
			}
			row[i] = k
			continue
		}
		val, err := scalar(d, fieldAt(v, fields[i]))
		if err != nil {
			return fmt.Errorf("%s.%s: %w", v.Type().Name(), c.GoName, err)
		}
		row[i] = val
	}
	return nil
}

// Decode stores the values of one row (in the order of [Rows.Columns], as
// the driver scanned them into *any) in dst, and returns its foreign key,
// ordinal and shard key. A reference becomes a pointer to a record holding only its
// key (ID); NULL in a column that is not nullable is an error.
func (r *Rows[T]) Decode(raw []any, dst *T) (Owner, error) {
	var o Owner
	if len(raw) != len(r.cols) || dst == nil {
		return o, fmt.Errorf("store: decoding a row of %s: %d values for %d columns", r.ti.Table.Name, len(raw), len(r.cols))
	}
	v := reflect.ValueOf(dst).Elem()
	for i, c := range r.cols {
		var err error
		switch {
		case c.Ordinal:
			o.Ordinal, err = readInt(raw[i], c)
		case i == r.shardAt:
			o.Shard, err = readInt(raw[i], c)
		case c.GoName == "":
			if c.Name == r.OwnerColumn() {
				o.Key, err = readInt(raw[i], c)
			}
		case c.Ref:
			err = decodeRef(raw[i], c, fieldAt(v, r.fields[i]))
		default:
			err = decodeValue(raw[i], c, fieldAt(v, r.fields[i]), r.typ)
		}
		if err != nil {
			return o, err
		}
	}
	return o, nil
}

// decodeValue stores the value a driver returned for column c in fv, a
// Go field of t.
func decodeValue(raw any, c mapping.Column, fv reflect.Value, t reflect.Type) error {
	x, err := readValue(raw, c.Kind)
	if err != nil {
		return fmt.Errorf("column %s: %w", c.Name, err)
	}
	if err := setField(fv, x, c.Null); err != nil {
		return fmt.Errorf("column %s into %s.%s: %w", c.Name, t, c.GoName, err)
	}
	return nil
}

// decodeRef stores a reference column in fv, a pointer to a record: nil
// for NULL, else a new record whose ID is the key.
func decodeRef(raw any, c mapping.Column, fv reflect.Value) error {
	x, err := readValue(raw, schema.Int)
	if err != nil {
		return fmt.Errorf("column %s: %w", c.Name, err)
	}
	if x == nil {
		fv.SetZero()
		return nil
	}
	p := reflect.New(fv.Type().Elem())
	id := p.Elem().FieldByName("ID")
	if !id.IsValid() || !id.CanInt() {
		return fmt.Errorf("column %s: a %s has no ID", c.Name, fv.Type().Elem())
	}
	id.SetInt(x.(int64))
	fv.Set(p)
	return nil
}

// Dest is a slice of destinations for sql.Rows.Scan of one row of the
// codec's columns, to hand to [Rows.Decode] as raw (each element's value).
func (r *Rows[T]) Dest() (dest []any, raw []any) {
	raw = make([]any, len(r.cols))
	dest = make([]any, len(r.cols))
	for i := range raw {
		dest[i] = &raw[i]
	}
	return dest, raw
}

// InsertSQL is an INSERT of n rows of the codec's columns (see
// compile.InsertSQL); its arguments are n [Rows.Values] one after the other.
func (r *Rows[T]) InsertSQL(n int) string {
	return compile.InsertSQL(r.d, r.ti.Table.Name, r.names, n)
}

// UpdateSQL sets the codec's columns of the rows whose column where is one
// of n values: its arguments are the [Rows.Values] of the new contents,
// then the n values.
func (r *Rows[T]) UpdateSQL(where string, n int) string {
	return UpdateSQL(r.d, r.ti.Table.Name, r.names, where, n)
}

// SelectSQL reads the codec's columns of the rows whose column where is one
// of n values (every row when where is ""), ordered by the columns order.
func (r *Rows[T]) SelectSQL(where string, n int, order ...string) string {
	return SelectSQL(r.d, r.ti.Table.Name, r.names, where, n, order...)
}

// DeleteSQL removes the rows whose column where is one of n values.
func (r *Rows[T]) DeleteSQL(where string, n int) string {
	return DeleteSQL(r.d, r.ti.Table.Name, where, n)
}

// UpdateSQL is UPDATE table SET set[0] = ?, ... WHERE where IN (?, ...)
// with n values in the list, in dialect d: the arguments are the new
// values, then the list's.
func UpdateSQL(d compile.Dialect, table string, set []string, where string, n int) string {
	var b strings.Builder
	b.WriteString("UPDATE ")
	b.WriteString(d.Quote(table))
	b.WriteString(" SET ")
	list(&b, len(set), func(i int) {
		b.WriteString(d.Quote(set[i]))
		b.WriteString(" = ")
		b.WriteString(d.Placeholder(i + 1))
	})
	whereIn(&b, d, where, len(set)+1, n)
	return b.String()
}

// SelectSQL is SELECT cols FROM table WHERE where IN (?, ...) ORDER BY
// order, with n values in the list (no WHERE when where is ""), in
// dialect d.
func SelectSQL(d compile.Dialect, table string, cols []string, where string, n int, order ...string) string {
	var b strings.Builder
	b.WriteString("SELECT ")
	list(&b, len(cols), func(i int) { b.WriteString(d.Quote(cols[i])) })
	b.WriteString(" FROM ")
	b.WriteString(d.Quote(table))
	if where != "" {
		whereIn(&b, d, where, 1, n)
	}
	if len(order) > 0 {
		b.WriteString(" ORDER BY ")
		list(&b, len(order), func(i int) { b.WriteString(d.Quote(order[i])) })
	}
	return b.String()
}

// DeleteSQL is DELETE FROM table WHERE where IN (?, ...) with n values in
// the list, in dialect d.
func DeleteSQL(d compile.Dialect, table, where string, n int) string {
	var b strings.Builder
	b.WriteString("DELETE FROM ")
	b.WriteString(d.Quote(table))
	whereIn(&b, d, where, 1, n)
	return b.String()
}

// MaxSQL is SELECT COALESCE(MAX(col), 0) FROM table: the largest key
// handed out so far.
func MaxSQL(d compile.Dialect, table, col string) string {
	return "SELECT COALESCE(MAX(" + d.Quote(col) + "), 0) FROM " + d.Quote(table)
}

// whereIn writes WHERE col = ? for one value, else WHERE col IN (?, ...)
// with n placeholders from number from.
func whereIn(b *strings.Builder, d compile.Dialect, col string, from, n int) {
	b.WriteString(" WHERE ")
	b.WriteString(d.Quote(col))
	if n == 1 {
		b.WriteString(" = ")
		b.WriteString(d.Placeholder(from))
		return
	}
	b.WriteString(" IN (")
	list(b, n, func(i int) { b.WriteString(d.Placeholder(from + i)) })
	b.WriteByte(')')
}

// list writes n items separated by commas, each by item.
func list(b *strings.Builder, n int, item func(i int)) {
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		item(i)
	}
}
