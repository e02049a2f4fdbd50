package compile

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Fold maps every rune of s to the representative of its Unicode simple
// folding orbit (unicode.SimpleFold), the smallest member, which is the
// rule the evaluator's case-insensitive contains applies: a contains b
// case-insensitively exactly when Fold(a) contains Fold(b). Bytes that are
// not UTF-8 become U+FFFD, as the evaluator decodes them.
//
// SQLite runs it as the SQL function croql_fold (see package
// compile/engine). PostgreSQL and MySQL use lower() instead; docs/sql.md
// lists where the two disagree.
func Fold(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		b.WriteRune(canon(r))
	}
	return b.String()
}

// canon is the smallest member of r's simple folding orbit.
func canon(r rune) rune {
	if r < utf8.RuneSelf {
		if 'a' <= r && r <= 'z' {
			r -= 'a' - 'A'
		}
		return r
	}
	m := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		m = min(m, f)
	}
	return m
}
