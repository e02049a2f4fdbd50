package store

import (
	"context"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/compile"
	"github.com/croql/croql/demo"
	"github.com/croql/croql/internal/testdb"
	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
)

// TestKeyInOnEveryEngine: compile.KeyIn selects exactly the rows whose
// keys it lists (duplicates and keys no row has included), on every
// engine; on SQLite the list is one parameter, the keys as a JSON array
// read by json_each, so its statement's text is the same for any keys.
func TestKeyInOnEveryEngine(t *testing.T) {
	cat := schema.New()
	m := mapping.Default(cat)
	p := demo.Generate(demo.Options{Strings: 300, Seed: 3})
	c, ok := cat.Context("strings")
	require.True(t, ok)
	ids := []int64{p.Strings[7].ID, p.Strings[3].ID, p.Strings[7].ID, -5, 1 << 62, p.Strings[299].ID}
	want := []int64{p.Strings[3].ID, p.Strings[7].ID, p.Strings[299].ID}
	slices.Sort(want)
	for _, eng := range testdb.Engines(t) {
		db := openRead(t, eng, m, p)
		s, err := compile.KeyIn(db.Dialect, m, c, ids)
		require.NoError(t, err)
		rows, err := db.SQL.QueryContext(context.Background(), "SELECT "+s.Key+" FROM "+s.From+" WHERE "+s.Where+" ORDER BY 1", s.Args...)
		require.NoError(t, err)
		assert.Equal(t, want, ints(t, rows), eng)
		if eng == "sqlite" {
			other, err := compile.KeyIn(db.Dialect, m, c, []int64{1, 2})
			require.NoError(t, err)
			assert.Equal(t, s.Where, other.Where, "the same statement for any keys")
			assert.Len(t, s.Args, 1, "one parameter")
		}
	}
}
