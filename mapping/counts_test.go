package mapping_test

import (
	"testing"

	"github.com/croql/croql/ast"
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
	for _, where := range []string{"is translated and rating", "is translated or is approved", "is translated and not no such field",
		"rating > x", "rating >> 0", "is translated > 0", "count of rating > 0", "language > 0"} {
		bad := mapping.Default(schema.New())
		bad.Tables["source string"].Counts[mapping.CountKey("languages summary", where)] = "n_bad"
		if _, err := bad.Layout(); err == nil {
			t.Errorf("%q: no error", where)
		}
	}
}

// TestCountComparisons: a count's filter may compare an int field of the
// element, or the count of a collection of it, with an int constant;
// Table.Count finds it under any comparison that holds of the same ints
// and no other.
func TestCountComparisons(t *testing.T) {
	m := mapping.Default(schema.New())
	s := m.Tables["source string"]
	for where, want := range map[string]string{
		"approvalsCount > 0":                "n_summary_with_approvals",
		"approvalsCount >= 1":               "n_summary_with_approvals",
		"not approvalsCount <= 0":           "n_summary_with_approvals",
		"not approvalsCount < 1":            "n_summary_with_approvals",
		"rating >= 1":                       "n_summary_rated",
		"approvalsCount >= 0":               "",
		"approvalsCount > 1":                "",
		"approvalsCount != 0":               "", // the same ints, but not of a count: a field may be negative
		"rating > 0 and approvalsCount > 0": "",
		"not approvalsCount > 0":            "",
	} {
		if got := s.Count("languages summary", where); got != want {
			t.Errorf("Count(languages summary, %q) = %q, want %q", where, got, want)
		}
	}
	for where, want := range map[string]string{
		"count of votes > 0":     "n_translations_with_votes",
		"count of votes >= 1":    "n_translations_with_votes",
		"count of votes != 0":    "n_translations_with_votes",
		"not count of votes = 0": "n_translations_with_votes",
		"count of approvals > 0": "n_translations_with_approvals",
		"count of votes > 1":     "",
		"not count of votes > 0": "",
		"count of comments > 0":  "",
	} {
		if got := s.Count("translations", where); got != want {
			t.Errorf("Count(translations, %q) = %q, want %q", where, got, want)
		}
	}
	tr := m.Tables["translation"]
	if got := tr.Count("votes", ""); got != "n_votes" {
		t.Errorf("translation: Count(votes) = %q", got)
	}
	l, err := m.Layout()
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, ti := range l.Tables {
		for _, c := range ti.Counts {
			switch c.Name {
			case "n_summary_with_approvals":
				found++
				if len(c.Where) != 1 || c.Where[0].Column != "approvals_count" || c.Where[0].Op != ast.OpGt || c.Where[0].Value != 0 || c.Where[0].Of != nil {
					t.Errorf("%s: terms %+v", c.Name, c.Where)
				}
			case "n_translations_with_votes":
				found++
				if len(c.Where) != 1 || c.Where[0].Of == nil || c.Where[0].OfElem.Name != "votes" || c.Where[0].Op != ast.OpGt || c.Where[0].Value != 0 {
					t.Errorf("%s: terms %+v", c.Name, c.Where)
				}
			}
		}
	}
	if found != 2 {
		t.Errorf("found %d of the 2 counts", found)
	}
	// Two counts of the same elements: refused.
	dup := mapping.Default(schema.New())
	dup.Tables["source string"].Counts[mapping.CountKey("languages summary", "approvalsCount >= 1")] = "n_dup"
	if _, err := dup.Layout(); err == nil {
		t.Error("two counts of approvalsCount > 0: no error")
	}
}

// TestCountOfDerivedEquals: a count's filter may name a derived bool
// field that tests its string column for a value (`is up`: mark = "up"):
// the term reads the column and the value; Table.Count finds it, and
// `not is up` is another count, which the mapping does not keep.
func TestCountOfDerivedEquals(t *testing.T) {
	m := mapping.Default(schema.New())
	tr := m.Tables["translation"]
	if got := tr.Count("votes", "is up"); got != "n_votes_up" {
		t.Errorf(`Count("votes", "is up") = %q`, got)
	}
	if got := tr.Count("votes", "not is up"); got != "" {
		t.Errorf(`Count("votes", "not is up") = %q, want none`, got)
	}
	l, err := m.Layout()
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, ti := range l.Tables {
		for _, c := range ti.Counts {
			if c.Name == "n_votes_up" {
				found = true
				if len(c.Where) != 1 || c.Where[0].Column != "mark" || c.Where[0].Equals != "up" || c.Where[0].Not || c.Where[0].Op != ast.OpInvalid {
					t.Errorf("n_votes_up: terms %+v", c.Where)
				}
			}
		}
	}
	if !found {
		t.Error("no column n_votes_up in the layout")
	}
}
