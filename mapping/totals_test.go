package mapping_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
)

// TestTotals: the reference mapping keeps the TM segments' totals, one
// column per count; a name taken by another table, or a table that keeps
// no counts, is an error; Prefixed prefixes the table.
func TestTotals(t *testing.T) {
	m := mapping.Default(schema.New())
	l, err := m.Layout()
	require.NoError(t, err)
	seg := m.Tables["TM segment"]
	tt := l.TotalsOf(seg)
	require.NotNil(t, tt)
	assert.Equal(t, "tm_segment_totals", tt.Name)
	assert.ElementsMatch(t, []string{"n_records", "n_records_used"}, tt.Columns)
	assert.Nil(t, l.TotalsOf(m.Tables["source string"]), "the strings keep none")
	assert.Contains(t, m.TablesWithCounts(), "tm_segment_totals")

	p, err := m.Prefixed("x_").Layout()
	require.NoError(t, err)
	var names []string
	for _, ti := range p.Tables {
		if ti.Totals != nil {
			names = append(names, ti.Totals.Name)
		}
		if ti.Filed != nil && ti.Filed.Counts != nil {
			names = append(names, ti.Filed.Counts.Name)
		}
	}
	assert.ElementsMatch(t, []string{"x_tm_segment_totals", "x_filed_language_counts"}, names)

	for name, set := range map[string]func(m *mapping.Mapping){
		"taken by a table":            func(m *mapping.Mapping) { m.Tables["TM segment"].Totals = "tm_records" },
		"taken by a counts table":     func(m *mapping.Mapping) { m.Tables["TM segment"].Totals = "string_language_counts" },
		"a table that keeps no count": func(m *mapping.Mapping) { m.Tables["user"].Totals = "user_totals" },
		"longer than 63 bytes":        func(m *mapping.Mapping) { m.Tables["TM segment"].Totals = strings.Repeat("t", 64) },
	} {
		m := mapping.Default(schema.New())
		set(m)
		_, err := m.Layout()
		assert.Error(t, err, name)
	}
}
