package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/croql/croql/compile"
	"github.com/croql/croql/mapping"
)

// RefreshCounts sets the Counts columns (mapping.Table.Counts: a
// string's count of translations, of languages summary elements where
// has qa issues, ...) of the rows of table (every table of m that has
// some when table is empty) to the counts of their elements, on the rows
// where where holds (every row when where is empty; where is written on
// the table unaliased, with args its values). A load writes the counts
// with the rows; croql serve's uploads refresh those of the strings they
// changed, in their transaction. On a sharded engine (a
// compile.Sharding dialect) it does nothing: the compiler does not read
// the columns there.
func RefreshCounts(ctx context.Context, q querier, d compile.Dialect, m *mapping.Mapping, table, where string, args ...any) error {
	if _, sharded := d.(compile.Sharding); sharded {
		return nil
	}
	l, err := m.Layout()
	if err != nil {
		return err
	}
	for _, ti := range l.Tables {
		if len(ti.Counts) == 0 || (table != "" && ti.Table.Name != table) {
			continue
		}
		stmt := countsSQL(d, ti)
		if where != "" {
			stmt += " WHERE " + where
		}
		if _, err := q.ExecContext(ctx, stmt, args...); err != nil {
			return fmt.Errorf("store: refreshing the counts of %s: %w", ti.Table.Name, err)
		}
	}
	return nil
}

// countsSQL is the UPDATE that sets every Counts column of ti's rows:
//
//	UPDATE "strings" SET "n_translations" = (SELECT COUNT(*) FROM "string_translations" AS e WHERE e."string_id" = "strings"."id"), ...
func countsSQL(d compile.Dialect, ti *mapping.TableLayout) string {
	t := d.Quote(ti.Table.Name)
	key := t + "." + d.Quote(ti.Table.Key)
	sets := make([]string, len(ti.Counts))
	for i, c := range ti.Counts {
		if c.Of != nil {
			sets[i] = d.Quote(c.Name) + " = " + soleSQL(d, c, key)
			continue
		}
		var from string
		if c.Child.Through != "" {
			from = d.Quote(c.Child.Through) + " AS e WHERE e." + d.Quote(c.Child.From) + " = " + key
		} else {
			from = d.Quote(c.Elem.Name) + " AS e WHERE e." + d.Quote(c.Child.FK) + " = " + key
		}
		for _, t := range c.Where {
			from += " AND "
			if t.Not {
				from += "NOT "
			}
			from += "e." + d.Quote(t.Column)
		}
		sets[i] = d.Quote(c.Name) + " = (SELECT COUNT(*) FROM " + from + ")"
	}
	return "UPDATE " + t + " SET " + strings.Join(sets, ", ")
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
