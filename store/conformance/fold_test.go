package compile_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/compile"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/store"
)

// cased is every rune that has a case mapping or a simple folding orbit.
func cased() []rune {
	var rs []rune
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue
		}
		if unicode.SimpleFold(r) != r || unicode.ToLower(r) != r || unicode.ToUpper(r) != r {
			rs = append(rs, r)
		}
	}
	return rs
}

// TestFoldIsSimpleFolding: two runes fold alike exactly when
// strings.EqualFold (simple folding orbits) says they are equal.
func TestFoldIsSimpleFolding(t *testing.T) {
	for _, r := range cased() {
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			require.Equal(t, compile.Fold(string(r)), compile.Fold(string(f)), "%U %U", r, f)
		}
		if l := unicode.ToLower(r); !strings.EqualFold(string(l), string(r)) {
			require.NotEqual(t, compile.Fold(string(r)), compile.Fold(string(l)), "%U %U", r, l)
		}
	}
	assert.Equal(t, "ÄRGER ÜBER", compile.Fold("ärger über"))
	assert.Equal(t, compile.Fold("K"), compile.Fold("\u212a"), "Kelvin sign")
	assert.Equal(t, compile.Fold("\ufffd"), compile.Fold("\xff"), "invalid UTF-8 folds as U+FFFD")
	assert.True(t, compile.LowerFoldSafe("Ärger über Café"))
	assert.False(t, compile.LowerFoldSafe("ſ"))
}

// engineFold returns the dialect's fold of every rune, computed by db.
func engineFold(t *testing.T, db *store.DB, rs []rune) map[rune]string {
	d := db.Dialect
	out := map[rune]string{}
	const chunk = 400
	for i := 0; i < len(rs); i += chunk {
		part := rs[i:min(i+chunk, len(rs))]
		exprs := make([]string, len(part))
		args := make([]any, len(part))
		for k, r := range part {
			exprs[k] = d.Fold(d.Param(k+1, schema.String))
			args[k] = string(r)
		}
		vals := make([][]byte, len(part))
		ptrs := make([]any, len(part))
		for k := range vals {
			ptrs[k] = &vals[k]
		}
		require.NoError(t, db.SQL.QueryRowContext(context.Background(), "SELECT "+strings.Join(exprs, ", "), args...).Scan(ptrs...))
		for k, r := range part {
			out[r] = string(vals[k])
		}
	}
	return out
}

// TestFoldAgreement compares each engine's case folding with the
// evaluator's on every cased rune: SQLite (croql_fold) agrees everywhere;
// PostgreSQL and MySQL (lower()) disagree exactly on the runes
// compile.LowerFoldUnsafe predicts from Go's Unicode tables, and agree on
// all others.
func TestFoldAgreement(t *testing.T) {
	rs := cased()
	for _, name := range engines(t) {
		t.Run(name, func(t *testing.T) {
			db, err := store.Open(context.Background(), name, dsnOf(name))
			require.NoError(t, err)
			defer db.Close()
			folded := engineFold(t, db, rs)
			classes := map[string][]rune{}
			for _, r := range rs {
				classes[folded[r]] = append(classes[folded[r]], r)
			}
			canon := func(r rune) string { return compile.Fold(string(r)) }
			bad := map[rune]bool{}
			for _, r := range rs {
				for _, s := range classes[folded[r]] {
					if canon(s) != canon(r) {
						bad[r], bad[s] = true, true
					}
				}
				for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
					if folded[f] != folded[r] {
						bad[r], bad[f] = true, true
					}
				}
			}
			got := make([]rune, 0, len(bad))
			for r := range bad {
				got = append(got, r)
			}
			slices.Sort(got)
			if name == "sqlite" {
				assert.Empty(t, got, "croql_fold disagrees with the evaluator")
				return
			}
			assert.Equal(t, runeList(compile.LowerFoldUnsafe()), runeList(got))
		})
	}
}

func runeList(rs []rune) string {
	var b strings.Builder
	for _, r := range rs {
		fmt.Fprintf(&b, "%U ", r)
	}
	return b.String()
}
