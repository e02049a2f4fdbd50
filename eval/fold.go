package eval

import (
	"unicode"
	"unicode/utf8"

	"github.com/croql/croql/typecheck"
)

// Case-insensitive contains under Unicode simple case folding, without
// allocating: two runes match when they belong to one unicode.SimpleFold
// orbit, which is the rule strings.EqualFold applies. Simple folding maps
// runes one to one, so a match of a needle of n runes is n runes long.

// foldNeedle is a constant needle, folded once at compile time.
type foldNeedle struct {
	// orbits holds, for each rune of the needle, every rune it matches.
	orbits [][]rune
	// lead marks the bytes a rune of the first orbit can start with:
	// the search looks at one byte at a time and decodes only at those.
	// Unused (scan false) when the first orbit holds utf8.RuneError, which
	// an invalid byte anywhere decodes to.
	lead [256]bool
	scan bool
	// ascii is set when every rune of the needle is ASCII and folds only
	// with ASCII runes (not k or s, which fold with the Kelvin sign and the
	// long s): a match is then made of ASCII bytes only, and a byte-wise
	// search finds it.
	ascii bool
	upper []byte // the needle in ASCII upper case, when ascii
}

// orbit lists the runes r matches under simple folding, r first.
func orbit(r rune) []rune {
	o := []rune{r}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		o = append(o, f)
	}
	return o
}

func newFoldNeedle(sub string) foldNeedle {
	n := foldNeedle{ascii: true}
	for _, r := range sub {
		o := orbit(r)
		n.orbits = append(n.orbits, o)
		for _, x := range o {
			if x >= utf8.RuneSelf {
				n.ascii = false
			}
		}
	}
	if len(n.orbits) > 0 && !member(n.orbits[0], utf8.RuneError) {
		n.scan = true
		var buf [utf8.UTFMax]byte
		for _, r := range n.orbits[0] {
			utf8.EncodeRune(buf[:], r)
			n.lead[buf[0]] = true
		}
	}
	if n.ascii {
		n.upper = make([]byte, len(sub))
		for i := 0; i < len(sub); i++ {
			n.upper[i] = upperASCII(sub[i])
		}
	}
	return n
}

func upperASCII(b byte) byte {
	if 'a' <= b && b <= 'z' {
		return b - ('a' - 'A')
	}
	return b
}

func member(o []rune, r rune) bool {
	for _, x := range o {
		if x == r {
			return true
		}
	}
	return false
}

// in reports whether s contains the needle, case-insensitively.
func (n *foldNeedle) in(s string) bool {
	if len(n.orbits) == 0 {
		return true
	}
	if n.ascii {
		u := n.upper
		first := u[0]
		for i := 0; i+len(u) <= len(s); i++ {
			if upperASCII(s[i]) != first {
				continue
			}
			j := 1
			for j < len(u) && upperASCII(s[i+j]) == u[j] {
				j++
			}
			if j == len(u) {
				return true
			}
		}
		return false
	}
	first := n.orbits[0]
	if n.scan {
		// A lead byte of a valid rune is never a continuation byte, so a
		// marked byte starts a rune (or is an invalid byte, which is a
		// rune of its own and matches nothing in the orbit).
		for i := 0; i < len(s); i++ {
			if !n.lead[s[i]] {
				continue
			}
			r, w := rune(s[i]), 1
			if r >= utf8.RuneSelf {
				r, w = utf8.DecodeRuneInString(s[i:])
			}
			if member(first, r) && n.matchRest(s[i+w:]) {
				return true
			}
		}
		return false
	}
	for i := 0; i < len(s); {
		r, w := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, w = utf8.DecodeRuneInString(s[i:])
		}
		if member(first, r) && n.matchRest(s[i+w:]) {
			return true
		}
		i += w
	}
	return false
}

// matchRest reports whether s starts with the needle's runes after the
// first.
func (n *foldNeedle) matchRest(s string) bool {
	for _, o := range n.orbits[1:] {
		if len(s) == 0 {
			return false
		}
		r, w := rune(s[0]), 1
		if r >= utf8.RuneSelf {
			r, w = utf8.DecodeRuneInString(s)
		}
		if !member(o, r) {
			return false
		}
		s = s[w:]
	}
	return true
}

// containsFold is "s contains sub" under simple folding, for a needle that
// is not a constant.
func containsFold(s, sub string) bool {
	if sub == "" {
		return true
	}
	for i := 0; i < len(s); {
		if hasPrefixFold(s[i:], sub) {
			return true
		}
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
	}
	return false
}

func hasPrefixFold(s, prefix string) bool {
	for _, p := range prefix {
		if len(s) == 0 {
			return false
		}
		r, w := utf8.DecodeRuneInString(s)
		if r != p && typecheck.FoldRune(r) != typecheck.FoldRune(p) {
			return false
		}
		s = s[w:]
	}
	return true
}
