package mapping

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/croql/croql/schema"
	"github.com/croql/croql/typecheck"
)

// CountsBy keeps counts of the elements of a row's collection for each
// value of one of the elements' fields, in a table of its own (a list of
// Table.CountsBy): one row per row of the owner and value some element of
// it holds, with the owner's key, the value, and the counts. A string's
// translations per language: the table holds, for each string and each
// language it has translations in, how many it has there, and how many
// of those have votes, or approvals. The loader fills the table and
// store.RefreshCounts keeps it, as they do the Counts; the compiler counts
// the rows of `count of translations where (language = L and P) = 0` (or
// `> 0`, `translations with (...)`) from it, P a disjunction of filters
// it keeps, instead of reading each string's translations. A sharded
// engine has no such table (the compiler does not read it there).
type CountsBy struct {
	// Name is the table's name.
	Name string
	// Coll is the collection of the row's object whose elements are
	// counted; By the field of its elements whose values split them (a
	// string, language or user field that is never absent, with a column
	// of that name in the table; elements whose column is NULL, a user
	// the data does not name, are in no row).
	Coll, By string
	// Counts maps a filter of the elements, "" for every element or
	// terms joined by ` and ` as after ` where ` in a CountKey, to the
	// column that holds the count of the row's elements with the value
	// that it keeps.
	Counts map[string]string
}

// CountsByTable is a Table.CountsBy table as the Layout resolves it.
type CountsByTable struct {
	Name string
	// Owner is the table of the rows whose elements are counted; Key the
	// column of this table that holds an owner row's key (the join
	// table's or the elements' column of it).
	Owner *Table
	Key   string
	// Field is the collection, Child how its elements are reached, Elem
	// their table.
	Field *schema.Field
	Child *Child
	Elem  *Table
	// By is the elements' field whose values split them, ByColumn its
	// column (in Elem and in this table), ByKind its column kind.
	By       *schema.Field
	ByColumn string
	ByKind   schema.Kind
	// Counts are the counts, each with the Name of its column (Field,
	// Child and Elem the collection's, Where its filter).
	Counts []CountColumn
}

// Count is the column of cb that holds the count of the elements where
// where holds ("" for all of them; terms as Table.Count takes them), ""
// when it keeps none.
func (cb *CountsByTable) Count(where string) string {
	want := []string(nil)
	if where != "" {
		want = countTerms(where)
	}
	for _, c := range cb.Counts {
		var have []string
		for _, t := range c.Where {
			have = append(have, t.key())
		}
		slices.Sort(have)
		if slices.Equal(have, want) {
			return c.Name
		}
	}
	return ""
}

// CountsBy returns the CountsBy table of t that splits the elements of
// its collection coll by their field by, nil when it has none.
func (l *Layout) CountsBy(t *Table, coll, by string) *CountsByTable {
	for _, cb := range l.countsBy {
		if cb.Owner == t && cb.Field.Name == coll && cb.By.Name == by {
			return cb
		}
	}
	return nil
}

// CountsByTables are every CountsBy table of the layout.
func (l *Layout) CountsByTables() []*CountsByTable { return l.countsBy }

// countsByTables checks and resolves the CountsBy tables of every table.
func (b *layoutBuilder) countsByTables() {
	names := b.tableNames()
	for _, ti := range b.l.Tables {
		for _, spec := range ti.Table.CountsBy {
			cb, err := b.countsBy(ti, spec)
			if err == nil && names[spec.Name] {
				err = errors.New("the name is taken")
			}
			if err != nil {
				b.fail(fmt.Errorf("mapping: counts by %s of %s (table %s): %w", spec.By, spec.Coll, spec.Name, err))
				continue
			}
			names[spec.Name] = true
			b.l.countsBy = append(b.l.countsBy, cb)
		}
	}
}

// tableNames are the names of the layout's tables so far: the mapping's,
// the join tables, and the tables of kept counts resolved already.
func (b *layoutBuilder) tableNames() map[string]bool {
	names := map[string]bool{}
	for _, ti := range b.l.Tables {
		names[ti.Table.Name] = true
		if ti.Filed != nil && ti.Filed.Counts != nil {
			names[ti.Filed.Counts.Name] = true
		}
	}
	for _, j := range b.l.Joins {
		names[j.Name] = true
	}
	for _, cb := range b.l.countsBy {
		names[cb.Name] = true
	}
	return names
}

// countsBy resolves spec, a CountsBy table of ti's rows.
func (b *layoutBuilder) countsBy(ti *TableLayout, spec CountsBy) (*CountsByTable, error) {
	if err := CheckIdent(spec.Name); err != nil {
		return nil, err
	}
	if ti.Object == nil || ti.Table.Key == "" {
		return nil, errors.New("the table has no key")
	}
	f, _ := ti.Object.Field(spec.Coll)
	ch := ti.Table.Children[spec.Coll]
	if f == nil || f.Type.Kind != schema.Collection || f.Type.Obj == nil || ch == nil {
		return nil, fmt.Errorf("%s has no collection `%s`", ti.Object.Name, spec.Coll)
	}
	et, err := b.m.Table(f.Type.Obj)
	if err != nil {
		return nil, err
	}
	cb := &CountsByTable{Name: spec.Name, Owner: ti.Table, Key: ch.FK, Field: f, Child: ch, Elem: et}
	if ch.Through != "" {
		cb.Key = ch.From
		if et.Key == "" {
			return nil, fmt.Errorf("table %s has no key", et.Name)
		}
	}
	by, _ := f.Type.Obj.Field(spec.By)
	if by == nil || (by.Type.Kind != schema.String && by.Type.Kind != schema.Language && by.Type.Kind != schema.User) || by.Nullable ||
		typecheck.DerivedBase(by) != nil || et.Columns[spec.By] == "" {
		return nil, fmt.Errorf("`%s` is not a stored string, language or user field of %s that is never absent", spec.By, f.Type.Obj.Name)
	}
	cb.By, cb.ByColumn = by, et.Columns[spec.By]
	if el := b.l.Of(et); el != nil {
		for _, c := range el.Columns {
			if c.Name == cb.ByColumn {
				cb.ByKind = c.Kind
			}
		}
	}
	if cb.ByKind == schema.Invalid {
		return nil, fmt.Errorf("table %s has no column %s", et.Name, cb.ByColumn)
	}
	cols := map[string]bool{cb.Key: true, cb.ByColumn: true}
	for _, where := range slices.Sorted(maps.Keys(spec.Counts)) {
		name := spec.Counts[where]
		if err := CheckIdent(name); err != nil {
			return nil, err
		}
		if cols[name] {
			return nil, fmt.Errorf("column %s is taken", name)
		}
		cols[name] = true
		cc := CountColumn{Name: name, Field: f, Child: ch, Elem: et}
		if where != "" {
			for _, term := range strings.Split(where, " and ") {
				ct, err := b.countTerm(f.Type.Obj, et, parseCountTerm(term))
				if err != nil {
					return nil, err
				}
				cc.Where = append(cc.Where, ct)
			}
		}
		cb.Counts = append(cb.Counts, cc)
	}
	return cb, nil
}

// key is t as a term of a key of Table.Counts, in its canonical form
// (what countTerms makes of it).
func (t CountTerm) key() string {
	ct := countTerm{not: t.Not, count: t.Of != nil, op: t.Op, k: t.Value}
	if t.Field != nil {
		ct.name = t.Field.Name
	}
	return ct.canonical().String()
}
