package mapping

import (
	"errors"
	"fmt"
)

// TotalsRows is the column of a Totals table that holds how many rows
// its table has.
const TotalsRows = "n_rows"

// TotalsKey is the primary key of a Totals table's one row, 1 (every
// table has a primary key: a publication of the tables replicates
// updates).
const TotalsKey = "id"

// TotalsTable is a Table.Totals table as the Layout resolves it: one row,
// TotalsKey 1, with TotalsRows and, for each Counts column of Owner (Columns, in the
// layout's order), a column of the same name holding how many of Owner's
// rows have that count above zero.
type TotalsTable struct {
	Name    string
	Owner   *Table
	Columns []string
}

// TotalsOf is the Totals table of t, nil when it has none.
func (l *Layout) TotalsOf(t *Table) *TotalsTable {
	if ti := l.Of(t); ti != nil {
		return ti.Totals
	}
	return nil
}

// totals checks and resolves the Totals table of every table that has
// one (after counts, whose columns it keeps totals of).
func (b *layoutBuilder) totals() {
	names := b.tableNames()
	for _, ti := range b.l.Tables {
		name := ti.Table.Totals
		if name == "" {
			continue
		}
		err := CheckIdent(name)
		switch {
		case err != nil:
		case names[name]:
			err = fmt.Errorf("table %s is taken", name)
		case len(ti.Counts) == 0:
			err = errors.New("the table keeps no counts")
		}
		if err != nil {
			b.fail(fmt.Errorf("mapping: totals of table %s: %w", ti.Table.Name, err))
			continue
		}
		names[name] = true
		tt := &TotalsTable{Name: name, Owner: ti.Table}
		for _, c := range ti.Counts {
			tt.Columns = append(tt.Columns, c.Name)
		}
		ti.Totals = tt
	}
}
