package store

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/croql/croql/compile"
	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
)

// TestIndexNamesDistinct: with the long table prefix of a load built
// beside the tables it replaces, every index of the DDL has a name of its
// own of at most 63 bytes (the counts of a string start alike and were cut
// to one name).
func TestIndexNamesDistinct(t *testing.T) {
	m := mapping.Default(schema.New()).Prefixed("croql_1795949449_6861c9be198b_")
	re := regexp.MustCompile("^CREATE (?:UNIQUE )?INDEX `([^`]+)`")
	seen := map[string]bool{}
	for _, s := range DDL(compile.MySQL{}, m) {
		if g := re.FindStringSubmatch(s); g != nil {
			assert.LessOrEqual(t, len(g[1]), 63, g[1])
			assert.False(t, seen[g[1]], "index %s twice", g[1])
			seen[g[1]] = true
		}
	}
	assert.Greater(t, len(seen), 30)
}
