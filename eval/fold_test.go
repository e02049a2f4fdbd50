package eval

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

// refContainsFold is the definition: some window of s with as many runes
// as sub equals sub under strings.EqualFold.
func refContainsFold(s, sub string) bool {
	n := utf8.RuneCountInString(sub)
	for i := 0; i <= len(s); {
		j, k := i, 0
		for k < n && j < len(s) {
			_, w := utf8.DecodeRuneInString(s[j:])
			j += w
			k++
		}
		if k == n && strings.EqualFold(s[i:j], sub) {
			return true
		}
		if i == len(s) {
			return false
		}
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
	}
	return false
}

func TestFoldContains(t *testing.T) {
	cases := []struct {
		s, sub string
		want   bool
	}{
		{"Hello World", "WORLD", true},
		{"Hello World", "", true},
		{"", "", true},
		{"", "a", false},
		{"Straße", "STRASSE", false}, // ß folds to itself only (simple folding)
		{"ÉCOLE", "école", true},
		{"\u212Aelvin", "kelvin", true},  // Kelvin sign ~ k
		{"kelvin", "\u212AELVIN", true},  // and back
		{"mißt", "MI\u1E9ET", true},      // ß ~ ẞ
		{"ΣΊΣΥΦΟΣ", "σίσυφος", true},     // final and medial sigma fold together
		{"\u017Fpeed", "SPEED", true},    // long s ~ s
		{"caf\xffé", "CAF\uFFFDÉ", true}, // an invalid byte reads as U+FFFD
		{"abc", "abcd", false},
		{"aaab", "AAB", true},
		{"Café au lait", "CAFÉ AU", true},
		{"Cafe", "café", false},
	}
	for _, tc := range cases {
		n := newFoldNeedle(tc.sub)
		assert.Equal(t, tc.want, n.in(tc.s), "needle %q in %q", tc.sub, tc.s)
		assert.Equal(t, tc.want, containsFold(tc.s, tc.sub), "containsFold(%q, %q)", tc.s, tc.sub)
		assert.Equal(t, tc.want, refContainsFold(tc.s, tc.sub), "definition (%q, %q)", tc.s, tc.sub)
	}
}

func TestFoldContainsRandom(t *testing.T) {
	alphabet := []rune("aAbBkKsSß\u212A\u017FéÉσςΣ ẞ\uFFFD")
	r := rand.New(rand.NewPCG(1, 2))
	gen := func(n int) string {
		var b strings.Builder
		for range n {
			if r.IntN(20) == 0 {
				b.WriteByte(0xff) // invalid UTF-8
				continue
			}
			b.WriteRune(alphabet[r.IntN(len(alphabet))])
		}
		return b.String()
	}
	for range 20000 {
		s, sub := gen(r.IntN(12)), gen(r.IntN(4))
		want := refContainsFold(s, sub)
		n := newFoldNeedle(sub)
		if got := n.in(s); got != want {
			t.Fatalf("needle %q in %q: got %v, want %v", sub, s, got, want)
		}
		if got := containsFold(s, sub); got != want {
			t.Fatalf("containsFold(%q, %q): got %v, want %v", s, sub, got, want)
		}
	}
}

func TestFoldNeedleAllocatesNothing(t *testing.T) {
	n := newFoldNeedle("café")
	a := newFoldNeedle("world")
	allocs := testing.AllocsPerRun(100, func() {
		n.in("Un CAFÉ, s'il vous plaît")
		a.in("Hello World")
		containsFold("ΣΊΣΥΦΟΣ", "σίσυφος")
	})
	assert.Zero(t, allocs)
}
