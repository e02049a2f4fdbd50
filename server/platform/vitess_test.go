package platform

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/internal/testdb"
)

// vitessPlacement counts, on Vitess, the rows an upload placed apart
// from their string (a shard key other than the string's): each must be
// 0, as vtgate reads a string's collections on the string's shard.
var vitessPlacement = map[string]string{
	"strings apart from their id": "SELECT count(*) FROM strings WHERE shard_key <> id",
	"translations apart":          "SELECT count(*) FROM string_translations AS l JOIN translations AS t ON t.id = l.translation_id WHERE t.shard_key <> l.shard_key",
	"translation links apart":     "SELECT count(*) FROM string_translations AS l JOIN strings AS s ON s.id = l.string_id WHERE s.shard_key <> l.shard_key",
	"label links apart":           "SELECT count(*) FROM string_labels AS l JOIN strings AS s ON s.id = l.string_id WHERE s.shard_key <> l.shard_key",
	"summaries apart":             "SELECT count(*) FROM languages_summary AS e JOIN strings AS s ON s.id = e.string_id WHERE s.shard_key <> e.shard_key",
}

// TestVitessUploads: on Vitess the uploads of TestBatchSizes (a new file,
// a translation upload, a source update) write as many rows into each
// table as on SQLite, each placed with its string: a new string is a
// master, its shard key its id, and its translations, their links, its
// label links and summaries carry it.
func TestVitessUploads(t *testing.T) {
	testdb.Need(t, "vitess")
	got := batchUploads(t, "vitess", 0)
	want := batchUploads(t, "sqlite", 0)
	for table, rows := range want {
		assert.Equal(t, rows.n, got[table].n, "rows of %s", table)
	}
	for name := range vitessPlacement {
		require.Equal(t, 1, got[name].n, name)
		assert.Regexp(t, `^count\(\*\)=0$`, strings.TrimSpace(got[name].rows), name)
	}
}
