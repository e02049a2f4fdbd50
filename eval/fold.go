package eval

import (
	"unicode"
	"unicode/utf8"
)

// Case-insensitive contains under Unicode simple case folding, without
// allocating: two runes match when they belong to one unicode.SimpleFold
// orbit, which is the rule strings.EqualFold applies. Simple folding maps
// runes one to one, so a match of a needle of n runes is n runes long.

// canon is the representative of r's simple folding orbit: its smallest
// member.
func canon(r rune) rune {
	if r < utf8.RuneSelf {
		if 'a' <= r && r <= 'z' {
			r -= 'a' - 'A'
		}
		return r
	}
	m := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f < m {
			m = f
		}
	}
	return m
}

// foldNeedle is a constant needle, folded once at compile time.
type foldNeedle struct {
	runes []rune // canonical runes of the needle
	// ascii is set when every rune of the needle is ASCII and folds only
	// with ASCII runes (not k or s, which fold with the Kelvin sign and the
	// long s): a match is then made of ASCII bytes only, and a byte-wise
	// search finds it.
	ascii bool
	upper []byte // the needle in ASCII upper case, when ascii
}

func newFoldNeedle(sub string) foldNeedle {
	n := foldNeedle{ascii: true}
	for _, r := range sub {
		n.runes = append(n.runes, canon(r))
		if r >= utf8.RuneSelf || canon(r) == 'K' || canon(r) == 'S' {
			n.ascii = false
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

// in reports whether s contains the needle, case-insensitively.
func (n *foldNeedle) in(s string) bool {
	if len(n.runes) == 0 {
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
	for i := 0; i < len(s); {
		if n.matchAt(s[i:]) {
			return true
		}
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
	}
	return false
}

// matchAt reports whether s starts with the needle.
func (n *foldNeedle) matchAt(s string) bool {
	for _, want := range n.runes {
		if len(s) == 0 {
			return false
		}
		r, w := utf8.DecodeRuneInString(s)
		if r != want && canon(r) != want {
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
		if r != p && canon(r) != canon(p) {
			return false
		}
		s = s[w:]
	}
	return true
}
