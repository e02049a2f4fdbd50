package typecheck

import (
	"fmt"
	"slices"
	"strings"

	"github.com/croql/croql/ast"
	"github.com/croql/croql/diag"
	"github.com/croql/croql/schema"
)

// MaxSuggested is how many diagnostics of one query get did-you-mean
// suggestions by edit distance: the first few unknown names are the ones a
// person reads; a text full of them (an attack, or a paste gone wrong)
// costs no more.
const MaxSuggested = 5

// maxSuggestKey is the longest name (in runes, normalised) that gets
// suggestions: the edit distance costs the product of the lengths.
const maxSuggestKey = 64

// Names is a set of candidate names prepared for did-you-mean suggestions:
// each name's normal key (see schema.NormalKey) computed once, one name per
// key (the first in byte order), ordered by the key's length so that a
// lookup compares only names whose length is within the distance limit.
// Build it once per environment (Config.Prepare does) and use it from any
// number of goroutines.
type Names struct {
	items []nameKey
	// start[l] is the index of the first item whose key has at least l
	// runes; len(start) is the longest key's length + 2.
	start []int
}

type nameKey struct {
	name string
	key  []rune
}

// NewNames prepares names for suggestions.
func NewNames(names []string) *Names {
	sorted := slices.Clone(names)
	slices.Sort(sorted)
	seen := make(map[string]bool, len(sorted))
	items := make([]nameKey, 0, len(sorted))
	for _, n := range sorted {
		k := schema.NormalKey(n)
		if seen[k] {
			continue
		}
		seen[k] = true
		items = append(items, nameKey{name: n, key: []rune(k)})
	}
	slices.SortStableFunc(items, func(a, b nameKey) int { return len(a.key) - len(b.key) })
	longest := 0
	if len(items) > 0 {
		longest = len(items[len(items)-1].key)
	}
	start := make([]int, longest+2)
	i := 0
	for l := range start {
		for i < len(items) && len(items[i].key) < l {
			i++
		}
		start[l] = i
	}
	return &Names{items: items, start: start}
}

// Closest returns up to n names nearest to s by edit distance over their
// normal keys, nearest first (equally near ones in byte order), within a
// distance that grows with the length of s: two edits for short names (a
// transposition is two), a third of the length for longer ones, at most
// three. Names longer than 64 runes get none.
func (ns *Names) Closest(s string, n int) []string {
	if ns == nil || n <= 0 {
		return nil
	}
	ks := schema.NormalKey(s)
	limit := 2
	if len(ks) > 6 {
		limit = min(3, len(ks)/3)
	}
	key := []rune(ks)
	if len(key) > maxSuggestKey {
		return nil
	}
	lo, hi := max(len(key)-limit, 0), len(key)+limit+1
	if lo >= len(ns.start) {
		return nil
	}
	from, to := ns.start[lo], len(ns.items)
	if hi < len(ns.start) {
		to = ns.start[hi]
	}
	type scored struct {
		name string
		d    int
	}
	var best []scored
	rows := make([]int, 2*(len(key)+1))
	for _, it := range ns.items[from:to] {
		if d, ok := distanceWithin(key, it.key, limit, rows); ok {
			best = append(best, scored{it.name, d})
		}
	}
	slices.SortStableFunc(best, func(a, b scored) int {
		if a.d != b.d {
			return a.d - b.d
		}
		return strings.Compare(a.name, b.name)
	})
	out := make([]string, 0, min(n, len(best)))
	for _, b := range best[:min(n, len(best))] {
		out = append(out, b.name)
	}
	return out
}

// distanceWithin is the Levenshtein distance of a and b when it is at most
// limit. It stops as soon as a row's minimum exceeds the limit. rows holds
// two rows of len(a)+1 cells.
func distanceWithin(a, b []rune, limit int, rows []int) (int, bool) {
	if d := len(a) - len(b); d > limit || -d > limit {
		return 0, false
	}
	prev, cur := rows[:len(a)+1], rows[len(a)+1:2*(len(a)+1)]
	for i := range prev {
		prev[i] = i
	}
	for j := 1; j <= len(b); j++ {
		cur[0] = j
		rowMin := j
		for i := 1; i <= len(a); i++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			v := min(prev[i]+1, cur[i-1]+1, prev[i-1]+cost)
			cur[i] = v
			rowMin = min(rowMin, v)
		}
		if rowMin > limit {
			return 0, false
		}
		prev, cur = cur, prev
	}
	if d := prev[len(a)]; d <= limit {
		return d, true
	}
	return 0, false
}

// closest is Closest over names prepared for this one call (field names,
// enum values: a few dozen at most).
func closest(s string, candidates []string, n int) []string {
	return NewNames(candidates).Closest(s, n)
}

func quoteAll(names []string, prefix string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = prefix + ast.Quote(n)
	}
	return strings.Join(q, " or ")
}

// unknown builds the diagnostic for a name that no scope has, with the most
// useful suggestion available:
//  1. a member written as one word: fileId -> `id of file`;
//  2. a field of another object, with where it lives and how to reach it;
//  3. a misspelling of a field in scope: is hiden -> `is hidden`.
func (c *checker) unknown(n *ast.Ident, scopes []*schema.Object) diag.Diagnostic {
	inner := scopes[len(scopes)-1]
	d := diag.Errorf(diag.ClassLogic, RuleUnknownField, n.Sp, "`%s` is not a field of %s", n.Name, article(inner.Name))
	key := schema.NormalKey(n.Name)

	// 0. A name of the platform API: stringId -> `id`, createdAt -> `added`.
	if d, ok := c.apiNameDiag(n, scopes, d); ok {
		return d
	}

	// 1. fileId, fileName, branchTitle, userLogin: a member of an object field.
	for i := len(scopes) - 1; i >= 0; i-- {
		for _, f := range scopes[i].Fields {
			if (f.Type.Kind != schema.Record && f.Type.Kind != schema.User) || f.Type.Obj == nil {
				continue
			}
			if !strings.HasPrefix(key, f.Key) || len(key) == len(f.Key) {
				continue
			}
			if m, ok := f.Type.Obj.Field(key[len(f.Key):]); ok {
				fix := m.Name + " of " + f.Name
				d.Message += fmt.Sprintf("; did you mean `%s`?", fix)
				return d.WithSugarFix(n.Sp, fix)
			}
		}
	}

	// 2. A field of another object: say where it lives, and the way there.
	var owners []string
	for _, o := range c.cfg.Catalog.Objects {
		if _, ok := o.Field(n.Name); ok && !slices.Contains(scopes, o) {
			owners = append(owners, o.Name)
			if path := pathTo(scopes, o); path != "" {
				d.Message = fmt.Sprintf("`%s` is a field of %s, not of %s: test it on them with `count of %s where (...) > 0`",
					n.Name, plural(o.Name), article(inner.Name), path)
				// The condition the name stands in, tested on some element:
				// `count of votes > 0` on strings is
				// `count of translations where (count of votes > 0) > 0`.
				if t := c.boolTerm(); t != nil && c.text(t.Span()) != "" {
					fix := fmt.Sprintf("count of %s where (%s) > 0", path, c.text(t.Span()))
					return d.WithHint("write `%s`", fix).WithFix(t.Span(), fix)
				}
				return d
			}
		}
	}
	if len(owners) > 0 {
		d.Message = fmt.Sprintf("`%s` is a field of %s, not of %s", n.Name, orList(plural, owners), article(inner.Name))
		if ctx := c.contextsWith(n.Name); len(ctx) > 0 {
			d = d.WithHint("it is available in the %s context", strings.Join(ctx, " or "))
		}
		return d
	}
	// 3. A misspelt field of a scope.
	var names []string
	for i := len(scopes) - 1; i >= 0; i-- {
		for _, f := range scopes[i].Fields {
			if f.Edition <= c.cfg.Edition {
				names = append(names, f.Name)
			}
		}
	}
	if !c.suggest() {
		return d
	}
	if best := closest(n.Name, names, 3); len(best) > 0 {
		d.Message += fmt.Sprintf("; did you mean `%s`?", best[0])
		for _, b := range best {
			d = d.WithFix(n.Sp, b)
		}
		return d
	}

	if len(names) > 0 {
		d = d.WithHint("fields here include: %s", strings.Join(names[:min(len(names), 8)], ", "))
	}
	return d
}

// pathTo finds a collection field of a scope whose elements are o.
func pathTo(scopes []*schema.Object, o *schema.Object) string {
	for i := len(scopes) - 1; i >= 0; i-- {
		for _, f := range scopes[i].Fields {
			if f.Type.Kind == schema.Collection && f.Type.Obj == o {
				return f.Name
			}
		}
	}
	return ""
}

// contextsWith lists the contexts whose objects (root or nested) have the
// field.
func (c *checker) contextsWith(name string) []string {
	var out []string
	for _, ctx := range c.cfg.Catalog.Contexts {
		if ctx == c.cfg.Context {
			continue
		}
		if reaches(ctx.Root, name, map[*schema.Object]bool{}) {
			out = append(out, ctx.Name)
		}
	}
	return out
}

func reaches(o *schema.Object, name string, seen map[*schema.Object]bool) bool {
	if o == nil || seen[o] {
		return false
	}
	seen[o] = true
	if _, ok := o.Field(name); ok {
		return true
	}
	for _, f := range o.Fields {
		if (f.Type.Kind == schema.Collection || f.Type.Kind == schema.Record) && reaches(f.Type.Obj, name, seen) {
			return true
		}
	}
	return false
}

func article(name string) string {
	if name == "" {
		return "this object"
	}
	switch name[0] {
	case 'a', 'e', 'i', 'o', 'u', 'A', 'E', 'I', 'O', 'U':
		return "an " + name
	}
	return "a " + name
}

func plural(name string) string {
	switch {
	case strings.HasSuffix(name, "y"):
		return name[:len(name)-1] + "ies"
	case strings.HasSuffix(name, "s"):
		return name
	}
	return name + "s"
}

func orList(f func(string) string, xs []string) string {
	m := make([]string, len(xs))
	for i, x := range xs {
		m[i] = f(x)
	}
	return strings.Join(m, " or ")
}
