package pull

import "testing"

// TestSummaryFlagsFit: the flags read are bits of a uint32, and each is
// a CroQL field name.
func TestSummaryFlagsFit(t *testing.T) {
	if len(summaryFlags) > 32 {
		t.Fatalf("%d summary flags do not fit in a uint32", len(summaryFlags))
	}
	for _, c := range []struct{ member, want string }{
		{"isTranslatedByTm", "is translated by tm"},
		{"hasTranslationAsSource", "has translation as source"},
		{"hasIcuSyntaxQaIssues", "has icu syntax qa issues"},
	} {
		if got := croqlName(c.member); got != c.want {
			t.Errorf("croqlName(%q) = %q, want %q", c.member, got, c.want)
		}
	}
}
