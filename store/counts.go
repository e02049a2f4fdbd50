package store

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/croql/croql/ast"
	"github.com/croql/croql/compile"
	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
)

// RefreshCounts sets the Counts columns (mapping.Table.Counts: a
// string's count of translations, of languages summary elements where
// has qa issues, a translation's count of votes, ...) of the rows of
// table (every table of m that has some when table is empty) to the
// counts of their elements, on the rows where where holds (every row when
// where is empty; where is written on the table unaliased, with args its
// values), and those of their elements' rows (the translations of those
// strings). A load writes the counts with the rows; croql serve's uploads
// refresh those of the strings they changed, in their transaction. On a
// sharded engine (a compile.Sharding dialect) it does nothing: the
// compiler does not read the columns there.
func RefreshCounts(ctx context.Context, q querier, d compile.Dialect, m *mapping.Mapping, table, where string, args ...any) error {
	if _, sharded := d.(compile.Sharding); sharded {
		return nil
	}
	l, err := m.Layout()
	if err != nil {
		return err
	}
	for _, ti := range l.Tables {
		if table != "" && ti.Table.Name != table {
			continue
		}
		if err := refreshRows(ctx, q, d, m, l, ti, rows{where: where}, args, 0); err != nil {
			return err
		}
	}
	if where != "" {
		return nil
	}
	// Every row: the CountsBy tables after every table's counts, which
	// they may read, and the FiledCounts after the Filed columns.
	for _, cb := range l.CountsByTables() {
		if table == "" || cb.Owner.Name == table {
			if err := refreshBy(ctx, q, d, cb, rows{}, nil); err != nil {
				return err
			}
		}
	}
	return refreshFiledAll(ctx, q, d, l)
}

// refreshFiledAll sets every FiledCounts table of l from every row.
func refreshFiledAll(ctx context.Context, q querier, d compile.Dialect, l *mapping.Layout) error {
	for _, ti := range l.Tables {
		if err := refreshFiled(ctx, q, d, ti, "", nil); err != nil {
			return err
		}
	}
	return nil
}

// RefreshFiledCounts sets the rows of the FiledCounts tables
// (mapping.Table.FiledCounts: how many strings a language's translations
// are filed under) of the values values (every value when there are
// none) to what the rows hold now, counting each value's rows again.
// RefreshCounts does for every row; with a condition it leaves them, and
// a writer calls RefreshFiledCounts once its writes are done, with the
// values of the rows it added, removed or refiled (once: a writer
// refreshes its strings' counts in chunks, and a value's count is a pass
// over its rows). On a sharded engine it does nothing, as RefreshCounts.
func RefreshFiledCounts(ctx context.Context, q querier, d compile.Dialect, m *mapping.Mapping, values ...any) error {
	if _, sharded := d.(compile.Sharding); sharded {
		return nil
	}
	l, err := m.Layout()
	if err != nil {
		return err
	}
	if len(values) == 0 {
		return refreshFiledAll(ctx, q, d, l)
	}
	for _, ti := range l.Tables {
		if ti.Filed == nil || ti.Filed.Counts == nil {
			continue // refreshFiled would skip it too; no parameters to write
		}
		ph := make([]string, len(values))
		for i := range values {
			ph[i] = d.Param(i+1, ti.Filed.Counts.ByKind)
		}
		if err := refreshFiled(ctx, q, d, ti, strings.Join(ph, ", "), values); err != nil {
			return err
		}
	}
	return nil
}

// refreshFiled sets the rows of ti's FiledCounts table (when it has one)
// of the values in (the parameters of an IN list, args; every value when
// empty) to the number of distinct Filed keys of ti's rows of each
// value:
//
//	DELETE FROM "filed_language_counts" WHERE "language" IN (in)
//	INSERT INTO "filed_language_counts" ("language", "n_filed")
//	SELECT "language", COUNT(DISTINCT "filed_string_id") FROM "translations"
//	WHERE "filed_string_id" IS NOT NULL AND "language" IN (in) GROUP BY "language"
//
// A value none of whose rows is filed under anything has no row (a count
// of 0).
func refreshFiled(ctx context.Context, q querier, d compile.Dialect, ti *mapping.TableLayout, in string, args []any) error {
	if ti.Filed == nil || ti.Filed.Counts == nil {
		return nil
	}
	fc := ti.Filed.Counts
	by, filed := d.Quote(fc.ByColumn), d.Quote(ti.Filed.Name)
	del := "DELETE FROM " + d.Quote(fc.Name)
	sel := "SELECT " + by + ", COUNT(DISTINCT " + filed + ") FROM " + d.Quote(ti.Table.Name) + " WHERE " + filed + " IS NOT NULL"
	if in != "" {
		del += " WHERE " + by + " IN (" + in + ")"
		sel += " AND " + by + " IN (" + in + ")"
	}
	if _, err := q.ExecContext(ctx, del, args...); err != nil {
		return fmt.Errorf("store: refreshing the counts of %s: %w", fc.Name, err)
	}
	ins := "INSERT INTO " + d.Quote(fc.Name) + " (" + by + ", " + d.Quote(fc.Count) + ") " + sel + " GROUP BY " + by
	if _, err := q.ExecContext(ctx, ins, args...); err != nil {
		return fmt.Errorf("store: refreshing the counts of %s: %w", fc.Name, err)
	}
	return nil
}

// refreshTotals counts the rows of tt's table again, and those of them
// whose kept counts are above zero, into tt's one row:
//
//	DELETE FROM "tm_segment_totals"
//	INSERT INTO "tm_segment_totals" ("id", "n_rows", "n_records", ...)
//	  SELECT 1, COUNT(*), COALESCE(SUM(CASE WHEN "n_records" > 0 THEN 1 ELSE 0 END), 0), ... FROM "tm_segments"
func refreshTotals(ctx context.Context, q querier, d compile.Dialect, tt *mapping.TotalsTable) error {
	cols := []string{d.Quote(mapping.TotalsKey), d.Quote(mapping.TotalsRows)}
	sel := []string{"1", "COUNT(*)"}
	for _, c := range tt.Columns {
		cols = append(cols, d.Quote(c))
		sel = append(sel, "COALESCE(SUM(CASE WHEN "+d.Quote(c)+" > 0 THEN 1 ELSE 0 END), 0)")
	}
	if _, err := q.ExecContext(ctx, "DELETE FROM "+d.Quote(tt.Name)); err != nil {
		return fmt.Errorf("store: refreshing the totals of %s: %w", tt.Owner.Name, err)
	}
	ins := "INSERT INTO " + d.Quote(tt.Name) + " (" + strings.Join(cols, ", ") + ") SELECT " + strings.Join(sel, ", ") + " FROM " + d.Quote(tt.Owner.Name)
	if _, err := q.ExecContext(ctx, ins); err != nil {
		return fmt.Errorf("store: refreshing the totals of %s: %w", tt.Owner.Name, err)
	}
	return nil
}

// rows are the rows of a table whose counts are refreshed: those where
// where holds (every row when it is empty), or, when keys is set, those
// whose column col is among the values k of the query keys.
type rows struct{ where, col, keys string }

// cond is r as a condition on the table unaliased.
func (r rows) cond(d compile.Dialect) string {
	if r.keys != "" {
		return d.Quote(r.col) + " IN (" + r.keys + ")"
	}
	return r.where
}

// refreshRows sets the Counts columns of ti's rows r, and those of the
// rows of its elements when r is not every row (every row of every table
// is refreshed on its own then).
func refreshRows(ctx context.Context, q querier, d compile.Dialect, m *mapping.Mapping, l *mapping.Layout, ti *mapping.TableLayout, r rows, args []any, depth int) (err error) {
	if r.cond(d) != "" && depth < 4 && ti.Object != nil && ti.Table.Key != "" {
		for _, name := range slices.Sorted(maps.Keys(ti.Table.Children)) {
			f, _ := ti.Object.Field(name)
			if f == nil || f.Type.Kind != schema.Collection || f.Type.Obj == nil {
				continue
			}
			et, err := m.Table(f.Type.Obj)
			if err != nil || l.Of(et) == nil {
				continue
			}
			if err := refreshRows(ctx, q, d, m, l, l.Of(et), elementsOf(d, ti, ti.Table.Children[name], et, r), args, depth+1); err != nil {
				return err
			}
		}
	}
	if r.cond(d) != "" {
		for _, cb := range l.CountsByTables() {
			if cb.Owner == ti.Table {
				if err := refreshBy(ctx, q, d, cb, r, args); err != nil {
					return err
				}
			}
		}
	}
	if len(ti.Counts) == 0 && ti.Filed == nil {
		return nil
	}
	if ti.Totals != nil {
		defer func() {
			if err == nil {
				err = refreshTotals(ctx, q, d, ti.Totals)
			}
		}()
	}
	t := d.Quote(ti.Table.Name)
	sets, consts := countsSQL(d, ti, len(args))
	stmt, all := "UPDATE "+t+" SET "+sets, append(slices.Clone(args), consts...)
	_, mysql := d.(compile.MySQL)
	switch {
	case mysql && r.keys != "":
		// MariaDB runs `UPDATE t ... WHERE col IN (SELECT ...)` as a
		// subquery per row of t; joined, it reads the keys' rows alone.
		// The keys' parameters come first.
		stmt = "UPDATE " + t + " JOIN (" + r.keys + ") AS r ON " + t + "." + d.Quote(r.col) + " = r.k SET " + sets
	case d.Placeholder(1) == d.Placeholder(2):
		// Positional parameters: the SET clause's come first.
		all = append(slices.Clone(consts), args...)
		fallthrough
	default:
		if c := r.cond(d); c != "" {
			stmt += " WHERE " + c
		}
	}
	if _, err := q.ExecContext(ctx, stmt, all...); err != nil {
		return fmt.Errorf("store: refreshing the counts of %s: %w", ti.Table.Name, err)
	}
	return nil
}

// refreshBy sets the rows of the CountsBy table cb of the owner rows r
// (every row when r has no condition) to the counts of their elements by
// value: it deletes them, then inserts one row per owner row and value of
// its elements, where the element's count of a collection that its own
// row keeps is read there (the elements' counts are refreshed first):
//
//	DELETE FROM "string_language_counts" WHERE "string_id" IN (SELECT "id" AS k FROM "strings" WHERE cond)
//	INSERT INTO "string_language_counts" ("string_id", "language", "n_translations", "n_with_approvals", ...)
//	SELECT j."string_id", e."language", COUNT(*), SUM(CASE WHEN (e."n_approvals" > $2) THEN 1 ELSE 0 END), ...
//	FROM "string_translations" AS j JOIN "translations" AS e ON e."id" = j."translation_id"
//	WHERE j."string_id" IN (SELECT "id" AS k FROM "strings" WHERE cond) GROUP BY j."string_id", e."language"
func refreshBy(ctx context.Context, q querier, d compile.Dialect, cb *mapping.CountsByTable, r rows, args []any) error {
	t := d.Quote(cb.Name)
	del := "DELETE FROM " + t
	owners := ""
	if c := r.cond(d); c != "" {
		owners = "SELECT " + d.Quote(cb.Owner.Key) + " AS k FROM " + d.Quote(cb.Owner.Name) + " WHERE " + c
		del += " WHERE " + d.Quote(cb.Key) + " IN (" + owners + ")"
	}
	if _, err := q.ExecContext(ctx, del, args...); err != nil {
		return fmt.Errorf("store: refreshing the counts of %s: %w", cb.Name, err)
	}
	ins, consts := countsByInsert(d, cb, owners, len(args))
	all := append(slices.Clone(args), consts...)
	if d.Placeholder(1) == d.Placeholder(2) {
		// Positional parameters: the select list's come first.
		all = append(slices.Clone(consts), args...)
	}
	if _, err := q.ExecContext(ctx, ins, all...); err != nil {
		return fmt.Errorf("store: refreshing the counts of %s: %w", cb.Name, err)
	}
	return nil
}

// countsByInsert is refreshBy's INSERT of the rows of cb of the owner
// rows owners (a query of their keys; every row when empty), with the
// constants of the counts' filters as parameters numbered from after+1.
func countsByInsert(d compile.Dialect, cb *mapping.CountsByTable, owners string, after int) (string, []any) {
	var consts []any
	param := func(v any, k schema.Kind) string {
		consts = append(consts, v)
		return d.Param(after+len(consts), k)
	}
	cols := []string{d.Quote(cb.Key), d.Quote(cb.ByColumn)}
	var from, fk string
	if ch := cb.Child; ch.Through != "" {
		fk = "j." + d.Quote(ch.From)
		from = d.Quote(ch.Through) + " AS j JOIN " + d.Quote(cb.Elem.Name) + " AS e ON e." + d.Quote(cb.Elem.Key) + " = j." + d.Quote(ch.To)
	} else {
		fk = "e." + d.Quote(ch.FK)
		from = d.Quote(cb.Elem.Name) + " AS e"
	}
	by := "e." + d.Quote(cb.ByColumn)
	sel := []string{fk, by}
	for _, c := range cb.Counts {
		cols = append(cols, d.Quote(c.Name))
		if len(c.Where) == 0 {
			sel = append(sel, "COUNT(*)")
			continue
		}
		terms := make([]string, len(c.Where))
		for i, t := range c.Where {
			terms[i] = byTermSQL(d, t, cb.Elem, param)
		}
		sel = append(sel, "SUM(CASE WHEN "+strings.Join(terms, " AND ")+" THEN 1 ELSE 0 END)")
	}
	stmt := "INSERT INTO " + d.Quote(cb.Name) + " (" + strings.Join(cols, ", ") + ") SELECT " + strings.Join(sel, ", ") + " FROM " + from +
		" WHERE " + by + " IS NOT NULL"
	if owners != "" {
		stmt += " AND " + fk + " IN (" + owners + ")"
	}
	return stmt + " GROUP BY " + fk + ", " + by, consts
}

// byTermSQL is the term t of a CountsBy count's filter on the element e
// (of table elem): a count of the element's collection that its row
// keeps is read from its column.
func byTermSQL(d compile.Dialect, t mapping.CountTerm, elem *mapping.Table, param func(any, schema.Kind) string) string {
	if t.Of != nil && t.Field != nil {
		if col := elem.Count(t.Field.Name, ""); col != "" {
			t.Of, t.OfElem, t.Column = nil, nil, col
		}
	}
	return countTermSQL(d, t, "e."+d.Quote(elem.Key), param)
}

// elementsOf are the rows of the element table et that are elements
// (through ch) of ti's rows r, their keys as k:
//
//	SELECT DISTINCT "translation_id" AS k FROM "string_translations" WHERE "string_id" IN (SELECT "id" FROM "strings" WHERE cond)
func elementsOf(d compile.Dialect, ti *mapping.TableLayout, ch *mapping.Child, et *mapping.Table, r rows) rows {
	owners := "SELECT " + d.Quote(ti.Table.Key) + " AS k FROM " + d.Quote(ti.Table.Name) + " WHERE " + r.cond(d)
	if ch.Through == "" {
		return rows{col: ch.FK, keys: owners}
	}
	return rows{col: et.Key, keys: "SELECT DISTINCT " + d.Quote(ch.To) + " AS k FROM " + d.Quote(ch.Through) + " WHERE " + d.Quote(ch.From) + " IN (" + owners + ")"}
}

// countsSQL is the SET list of the UPDATE of every Counts column of ti's
// rows, with the constants of the counts' filters as parameters numbered
// from after+1:
//
//	"n_translations" = (SELECT COUNT(*) FROM "string_translations" AS e WHERE e."string_id" = "strings"."id"), ...
func countsSQL(d compile.Dialect, ti *mapping.TableLayout, after int) (string, []any) {
	t := d.Quote(ti.Table.Name)
	key := t + "." + d.Quote(ti.Table.Key)
	sets := make([]string, len(ti.Counts), len(ti.Counts)+1)
	var consts []any
	param := func(v any, k schema.Kind) string {
		consts = append(consts, v)
		return d.Param(after+len(consts), k)
	}
	for i, c := range ti.Counts {
		if c.Of != nil {
			sets[i] = d.Quote(c.Name) + " = " + soleSQL(d, c, key)
			continue
		}
		sets[i] = d.Quote(c.Name) + " = (SELECT COUNT(*) FROM " + countFrom(d, c, key, param) + ")"
	}
	if f := ti.Filed; f != nil {
		sets = append(sets, d.Quote(f.Name)+" = "+FiledSQL(d, f, key))
	}
	return strings.Join(sets, ", "), consts
}

// FiledSQL is the value of the Filed column f of the row whose key is
// key: the key of the row of f.Owner, among those that list it, that is
// not a duplicate before one that is, then the lowest (NULL when none
// lists it):
//
//	(SELECT j."string_id" FROM "string_translations" AS j JOIN "strings" AS s ON s."id" = j."string_id" WHERE j."translation_id" = "translations"."id" ORDER BY s."is_duplicate", j."string_id" LIMIT 1)
//
// croql serve's translations list files a translation under the same
// string (the expression of its stringId).
func FiledSQL(d compile.Dialect, f *mapping.FiledColumn, key string) string {
	from := "j." + d.Quote(f.Child.From)
	order := from
	if f.Dup != "" {
		order = "s." + d.Quote(f.Dup) + ", " + from
	}
	return "(SELECT " + from + " FROM " + d.Quote(f.Child.Through) + " AS j JOIN " + d.Quote(f.Owner.Name) + " AS s ON s." + d.Quote(f.Owner.Key) + " = " + from +
		" WHERE j." + d.Quote(f.Child.To) + " = " + key + " ORDER BY " + order + d.Limit("1") + ")"
}

// countFrom is the FROM and WHERE of the count c of the row whose key is
// key: its elements (e) where every term of c's filter holds.
func countFrom(d compile.Dialect, c mapping.CountColumn, key string, param func(any, schema.Kind) string) string {
	var from, elemKey string
	reads := slices.ContainsFunc(c.Where, func(t mapping.CountTerm) bool { return t.Of == nil })
	switch {
	case c.Child.Through != "" && reads:
		from = d.Quote(c.Child.Through) + " AS j, " + d.Quote(c.Elem.Name) + " AS e WHERE j." + d.Quote(c.Child.From) + " = " + key +
			" AND e." + d.Quote(c.Elem.Key) + " = j." + d.Quote(c.Child.To)
		elemKey = "e." + d.Quote(c.Elem.Key)
	case c.Child.Through != "":
		from = d.Quote(c.Child.Through) + " AS e WHERE e." + d.Quote(c.Child.From) + " = " + key
		elemKey = "e." + d.Quote(c.Child.To)
	default:
		from = d.Quote(c.Elem.Name) + " AS e WHERE e." + d.Quote(c.Child.FK) + " = " + key
		elemKey = "e." + d.Quote(c.Elem.Key)
	}
	for _, t := range c.Where {
		from += " AND " + countTermSQL(d, t, elemKey, param)
	}
	return from
}

// countTermSQL is the term t of a count's filter on the element e, whose
// key is elemKey.
func countTermSQL(d compile.Dialect, t mapping.CountTerm, elemKey string, param func(any, schema.Kind) string) string {
	not := ""
	if t.Not {
		not = "NOT "
	}
	if t.Op == ast.OpInvalid {
		if t.Equals != "" {
			return not + "(e." + d.Quote(t.Column) + " = " + param(t.Equals, schema.String) + ")"
		}
		return not + "e." + d.Quote(t.Column)
	}
	x := "e." + d.Quote(t.Column)
	if t.Of != nil {
		if t.Of.Through != "" {
			x = "(SELECT COUNT(*) FROM " + d.Quote(t.Of.Through) + " AS e1 WHERE e1." + d.Quote(t.Of.From) + " = " + elemKey + ")"
		} else {
			x = "(SELECT COUNT(*) FROM " + d.Quote(t.OfElem.Name) + " AS e1 WHERE e1." + d.Quote(t.Of.FK) + " = " + elemKey + ")"
		}
	}
	return not + "(" + x + " " + sqlComparison(t.Op) + " " + param(t.Value, schema.Int) + ")"
}

// sqlComparison is the SQL of a comparison a count's term may make.
func sqlComparison(op ast.Op) string {
	if op == ast.OpNe {
		return "<>"
	}
	return op.String() // = < <= > >=
}

// soleSQL is the value of c (a mapping.CountColumn with Of) for the row
// whose key is key: the value of the elements' column when they all hold
// the same one (the column is never NULL), NULL when they differ or there
// are none:
//
//	(SELECT CASE WHEN MIN(x."user_id") = MAX(x."user_id") THEN MIN(x."user_id") END FROM "string_translations" AS e JOIN "translations" AS x ON x."id" = e."translation_id" WHERE e."string_id" = "strings"."id")
func soleSQL(d compile.Dialect, c mapping.CountColumn, key string) string {
	var from, col string
	if c.Child.Through != "" {
		col = "x." + d.Quote(c.OfColumn)
		from = d.Quote(c.Child.Through) + " AS e JOIN " + d.Quote(c.Elem.Name) + " AS x ON x." + d.Quote(c.Elem.Key) + " = e." + d.Quote(c.Child.To) +
			" WHERE e." + d.Quote(c.Child.From) + " = " + key
	} else {
		col = "e." + d.Quote(c.OfColumn)
		from = d.Quote(c.Elem.Name) + " AS e WHERE e." + d.Quote(c.Child.FK) + " = " + key
	}
	return "(SELECT CASE WHEN MIN(" + col + ") = MAX(" + col + ") THEN MIN(" + col + ") END FROM " + from + ")"
}
