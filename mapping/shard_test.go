package mapping_test

import (
	"maps"
	"slices"
	"testing"

	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
)

// TestColocated: a sharded engine places a string, what is under it and
// its translations with their votes and approvals by the master's id;
// labels and the other contexts' tables stay placed by their key, TM
// records by their segment. A renamed table keeps its placement.
func TestColocated(t *testing.T) {
	m := mapping.Default(schema.New())
	want := []string{"approvals", "comments", "custom_fields", "languages_summary", "screenshots",
		"string_labels", "string_translations", "strings", "translations", "votes"}
	if got := slices.Sorted(maps.Keys(m.Colocated())); !slices.Equal(got, want) {
		t.Fatalf("Colocated() = %v, want %v", got, want)
	}
	keys := m.ShardKeys()
	for table, col := range map[string]string{
		"strings": mapping.ShardKeyColumn, "votes": mapping.ShardKeyColumn, "string_labels": mapping.ShardKeyColumn,
		"labels": "id", "users": "id", "files": "id", "tm_segments": "id", "tm_records": "segment_id",
		"glossary_terms": "id", mapping.LoadMarker: "id",
	} {
		if keys[table] != col {
			t.Errorf("ShardKeys()[%q] = %q, want %q", table, keys[table], col)
		}
	}
	m.Tables["translation"].Name = "app_translations"
	if !m.Colocated()["app_translations"] || m.Colocated()["translations"] {
		t.Errorf("a renamed translations table: Colocated() = %v", m.Colocated())
	}
}
