package mapping_test

import (
	"testing"

	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
)

// TestCountKeys: a count's filter joins stored bool fields of the element,
// each maybe negated, with `and`; Table.Count finds it with the terms in
// any order, and a filter of anything else is refused.
func TestCountKeys(t *testing.T) {
	m := mapping.Default(schema.New())
	s := m.Tables["source string"]
	for _, where := range []string{"is translated and not is approved", "not is approved and is translated"} {
		if got := s.Count("languages summary", where); got != "n_summary_translated_not_approved" {
			t.Errorf("Count(%q) = %q", where, got)
		}
	}
	for _, where := range []string{"is approved and not is translated", "is translated and is approved", "not is approved"} {
		if got := s.Count("languages summary", where); got != "" {
			t.Errorf("Count(%q) = %q, want none", where, got)
		}
	}
	l, err := m.Layout()
	if err != nil {
		t.Fatal(err)
	}
	for _, ti := range l.Tables {
		for _, c := range ti.Counts {
			if c.Name == "n_summary_translated_not_shared" {
				if len(c.Where) != 2 || c.Where[0].Column != "is_translated" || c.Where[0].Not ||
					c.Where[1].Column != "has_shared_translation" || !c.Where[1].Not {
					t.Errorf("%s: terms %+v", c.Name, c.Where)
				}
			}
		}
	}
	for _, where := range []string{"is translated and rating", "is translated or is approved", "is translated and not no such field"} {
		bad := mapping.Default(schema.New())
		bad.Tables["source string"].Counts[mapping.CountKey("languages summary", where)] = "n_bad"
		if _, err := bad.Layout(); err == nil {
			t.Errorf("%q: no error", where)
		}
	}
}
