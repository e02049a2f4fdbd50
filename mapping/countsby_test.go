package mapping_test

import (
	"strings"
	"testing"

	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
)

// TestCountsBy: the reference mapping keeps a string's counts of
// translations by language in a table of their own; its counts are found
// by any form of their filters that holds of the same ints, a filter it
// does not keep finds none, and a table whose field is not a stored
// string of the elements, or whose name is taken, is refused.
func TestCountsBy(t *testing.T) {
	m := mapping.Default(schema.New())
	l, err := m.Layout()
	if err != nil {
		t.Fatal(err)
	}
	s := m.Tables["source string"]
	cb := l.CountsBy(s, "translations", "language")
	if cb == nil || cb.Name != "string_language_counts" || cb.Key != "string_id" || cb.ByColumn != "language" {
		t.Fatalf("CountsBy = %+v", cb)
	}
	for where, want := range map[string]string{
		"":                        "n_translations",
		"count of votes > 0":      "n_with_votes",
		"count of votes >= 1":     "n_with_votes",
		"count of votes != 0":     "n_with_votes",
		"count of approvals > 0":  "n_with_approvals",
		"count of votes > 1":      "",
		"is pre translated":       "",
		"count of approvals >= 2": "",
	} {
		if got := cb.Count(where); got != want {
			t.Errorf("Count(%q) = %q, want %q", where, got, want)
		}
	}
	if l.CountsBy(s, "translations", "text") != nil || l.CountsBy(s, "comments", "language") != nil {
		t.Error("a split the mapping does not keep was found")
	}
	if !strings.Contains(strings.Join(m.TablesWithCounts(), " "), "string_language_counts") {
		t.Errorf("TablesWithCounts = %v", m.TablesWithCounts())
	}
	if p := m.Prefixed("x_"); p.Tables["source string"].CountsBy[0].Name != "x_string_language_counts" || s.CountsBy[0].Name != "string_language_counts" {
		t.Error("Prefixed does not prefix the table alone")
	}
	for _, bad := range []mapping.CountsBy{
		{Name: "c", Coll: "translations", By: "updated"},
		{Name: "c", Coll: "translations", By: "language", Counts: map[string]string{"count of votes where is up > 0": "n"}},
		{Name: "strings", Coll: "translations", By: "language"},
		{Name: "c", Coll: "text", By: "language"},
	} {
		m := mapping.Default(schema.New())
		m.Tables["source string"].CountsBy = []mapping.CountsBy{bad}
		if _, err := m.Layout(); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}
