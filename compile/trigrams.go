package compile

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/typecheck"
)

// trigrams is the condition that narrows n, `F contains "..."` on a
// column with an index of its trigrams (mapping.Table.TextIndexes), to
// the rows the index finds, for a whole set (a page reads its first rows
// in key order and stops; the index's whole list of rows is read before
// any); "" where it does not apply. The engine's exact test of n still
// decides: the condition holds of every row n holds of, and n's column
// is never NULL, so `narrow AND n` is n, under a negation too.
//
// SQLite: the key among the rows of the FTS5 table of the column's
// trigrams (case sensitive) where the needle, as a phrase, is: every
// trigram of it, in order, one after the other.
//
//	t0."id" IN (SELECT rowid FROM "strings_text_trgm" WHERE "strings_text_trgm" MATCH ?)
//
// PostgreSQL: LIKE '%needle%' (its % _ and \ escaped), which a GIN index
// of pg_trgm answers (a plain filter where the server had no pg_trgm).
//
// Only a needle of three characters or more (an index of trigrams finds
// nothing shorter), of valid UTF-8 without NUL, and not folded
// (a case-insensitive contains folds by Unicode's rules, the index by
// none).
func (c *compiler) trigrams(n *typecheck.Contains) string {
	if c.purpose != WholeSet || n.Fold {
		return ""
	}
	switch c.d.(type) {
	case SQLite, Postgres:
	default:
		return ""
	}
	f, ok := n.X.(*typecheck.Field)
	k, kok := n.Sub.(*typecheck.Const)
	if !ok || !kok || k.Unresolved || k.T.Kind != schema.String || f.F.Nullable || f.F.Type.Kind != schema.String {
		return ""
	}
	needle := k.S
	if utf8.RuneCountInString(needle) < 3 || !utf8.ValidString(needle) || strings.IndexByte(needle, 0) >= 0 {
		return ""
	}
	if f.Scope < 0 || f.Scope >= len(c.scopes) {
		return ""
	}
	b := c.scopes[f.Scope]
	if b.tab == nil || b.tab.Key == "" || (f.Obj != nil && f.Obj != b.obj) || !slices.Contains(b.tab.TextIndexes, f.F.Name) {
		return ""
	}
	col := b.tab.Columns[f.F.Name]
	if col == "" {
		return ""
	}
	return c.sub(func() {
		if _, lite := c.d.(SQLite); lite {
			fts := c.q(mapping.TrigramTable(b.tab.Name, col))
			c.w(b.alias, ".", c.q(b.tab.Key), " IN (SELECT rowid FROM ", fts, " WHERE ", fts, " MATCH ")
			c.param(`"`+strings.ReplaceAll(needle, `"`, `""`)+`"`, schema.String)
			c.w(")")
			return
		}
		c.w(b.alias, ".", c.q(col), " LIKE ")
		r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
		c.param("%"+r.Replace(needle)+"%", schema.String)
	})
}
