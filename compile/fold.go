package compile

import (
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/croql/croql/typecheck"
)

// Fold maps every rune of s to the representative of its Unicode simple
// folding orbit (unicode.SimpleFold), the smallest member, which is the
// rule the evaluator's case-insensitive contains applies: a contains b
// case-insensitively exactly when Fold(a) contains Fold(b). Bytes that are
// not UTF-8 become U+FFFD, as the evaluator decodes them.
//
// SQLite runs it as the SQL function croql_fold (see package
// store). PostgreSQL and MySQL use lower() instead; docs/sql.md
// lists where the two disagree.
func Fold(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		b.WriteRune(typecheck.FoldRune(r))
	}
	return b.String()
}

// lowerUnsafe is the set of runes on which lower()-based folding (what
// PostgreSQL and MySQL run) and simple folding disagree: r is in it when
// some rune s lowers to the same rune as r but lies in another simple
// folding orbit, or lies in r's orbit but lowers differently (İ lowers to
// i; ſ, ς, µ and the Greek and Cyrillic symbol variants are lower case yet
// fold with another letter). It is computed once, from Go's Unicode
// tables, on first use.
var lowerUnsafe = sync.OnceValue(func() map[rune]bool {
	byLower := map[rune][]rune{}
	var cased []rune
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue
		}
		l := unicode.ToLower(r)
		if l != r || unicode.SimpleFold(r) != r {
			cased = append(cased, r)
			byLower[l] = append(byLower[l], r)
			if l != r {
				byLower[l] = append(byLower[l], l)
			}
		}
	}
	bad := map[rune]bool{}
	for _, r := range cased {
		for _, s := range byLower[unicode.ToLower(r)] {
			if typecheck.FoldRune(s) != typecheck.FoldRune(r) {
				bad[r], bad[s] = true, true
			}
		}
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if unicode.ToLower(f) != unicode.ToLower(r) {
				bad[r], bad[f] = true, true
			}
		}
	}
	return bad
})

// LowerFoldSafe reports whether a case-insensitive contains with s on
// either side gives the evaluator's answer in engines that fold with
// lower() (PostgreSQL, MySQL): s holds none of the runes where lowering
// and simple folding disagree (docs/sql.md lists them). SQLite folds like
// the evaluator always.
func LowerFoldSafe(s string) bool {
	bad := lowerUnsafe()
	for _, r := range s {
		if bad[r] {
			return false
		}
	}
	return true
}

// LowerFoldUnsafe returns the runes LowerFoldSafe rejects, ascending.
func LowerFoldUnsafe() []rune {
	bad := lowerUnsafe()
	out := make([]rune, 0, len(bad))
	for r := range bad {
		out = append(out, r)
	}
	slices.Sort(out)
	return out
}
