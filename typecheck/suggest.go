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

	// A bool literal (`is hidden = true`) or a value of a field that CroQL
	// splits into bools (`type = "plural"`): name the CroQL construct.
	if d, ok := c.boolLiteral(n, scopes, d); ok {
		return d
	}
	if d, ok := c.splitField(n, scopes, d); ok {
		return d
	}

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

// parentCompare returns the comparison (= or !=) whose operand is n, the
// identifier on top of the checker's path, the other operand, and the
// expression holding the comparison (nil at the top of the query).
func (c *checker) parentCompare(n *ast.Ident) (cmp *ast.Binary, other ast.Expr, outer ast.Expr) {
	if len(c.path) < 2 || c.path[len(c.path)-1] != ast.Expr(n) {
		return nil, nil, nil
	}
	b, ok := c.path[len(c.path)-2].(*ast.Binary)
	if !ok || b.Op != ast.OpEq && b.Op != ast.OpNe {
		return nil, nil, nil
	}
	switch {
	case b.X == ast.Expr(n):
		other = b.Y
	case b.Y == ast.Expr(n):
		other = b.X
	default:
		return nil, nil, nil
	}
	if len(c.path) >= 3 {
		outer = c.path[len(c.path)-3]
	}
	return b, other, outer
}

// boolLiteral is the diagnostic of `true` or `false`, which CroQL does not
// have: a bool is a condition by itself. `B = true` and `B != false` are
// `B`, `B = false` and `B != true` are `not B`. The fix is offered for the
// forms that mean the same for an absent B (`= true`, `!= true`), and for
// `= false`, `!= false` when B is a field that is never absent (an absent
// bool is false as a condition, while absent = false is false).
func (c *checker) boolLiteral(n *ast.Ident, scopes []*schema.Object, d diag.Diagnostic) (diag.Diagnostic, bool) {
	lit := strings.ToLower(n.Name)
	if lit != "true" && lit != "false" {
		return d, false
	}
	cmp, other, outer := c.parentCompare(n)
	if cmp == nil {
		d.Message = fmt.Sprintf("CroQL has no `%s`: a bool field is a condition by itself, tested as `is hidden` or `not is hidden`", n.Name)
		return d, true
	}
	b := c.text(other.Span())
	if b == "" {
		return d, false
	}
	if c.notBool(other, scopes) {
		d.Message = fmt.Sprintf("CroQL has no `%s`, and `%s` is not a bool: a bool field is a condition by itself, tested as `is hidden` or `not is hidden`", n.Name, b)
		return d, true
	}
	positive := (lit == "true") == (cmp.Op == ast.OpEq)
	fix := b
	if !positive {
		fix = "not " + b
		if _, ok := other.(*ast.Ident); !ok {
			fix = "not (" + b + ")"
		}
	}
	d.Message = fmt.Sprintf("CroQL has no `%s`: a bool is tested as `%s` (true) or `not %s` (false); write `%s`", n.Name, b, b, fix)
	if u, ok := outer.(*ast.Unary); ok && u.Op == ast.OpNot && !positive {
		fix = "(" + fix + ")"
	}
	if lit == "false" && !c.neverAbsent(other, scopes) {
		d.Message = fmt.Sprintf("CroQL has no `%s`: a bool is tested as `%s` (true) or `not %s` (false or absent)", n.Name, b, b)
		return d, true
	}
	return d.WithSugarFix(cmp.Sp, fix), true
}

// notBool reports whether e is a field of a scope that is not a bool.
func (c *checker) notBool(e ast.Expr, scopes []*schema.Object) bool {
	id, ok := e.(*ast.Ident)
	if !ok {
		return false
	}
	for i := len(scopes) - 1; i >= 0; i-- {
		if f, ok := scopes[i].Field(id.Name); ok {
			return f.Type.Kind != schema.Bool && !f.BoolAlso
		}
	}
	return false
}

// neverAbsent reports whether e is a field of a scope that is never absent.
func (c *checker) neverAbsent(e ast.Expr, scopes []*schema.Object) bool {
	id, ok := e.(*ast.Ident)
	if !ok {
		return false
	}
	for i := len(scopes) - 1; i >= 0; i-- {
		if f, ok := scopes[i].Field(id.Name); ok {
			return !f.Nullable
		}
	}
	return false
}

// splitField is the diagnostic of a comparison of a value that CroQL
// splits into bool fields, one per value: a string's type is `type is
// plural`, not `type = "plural"`. The fix writes the bool field (`not` it
// for !=); for a value with no field the message lists the fields.
func (c *checker) splitField(n *ast.Ident, scopes []*schema.Object, d diag.Diagnostic) (diag.Diagnostic, bool) {
	prefix := schema.NormalKey(n.Name + " is ")
	var fields []string
	for i := len(scopes) - 1; i >= 0; i-- {
		for _, f := range scopes[i].Fields {
			if f.Type.Kind == schema.Bool && strings.HasPrefix(f.Key, prefix) && len(f.Key) > len(prefix) && f.Edition <= c.cfg.Edition {
				fields = append(fields, f.Name)
			}
		}
	}
	if len(fields) == 0 {
		return d, false
	}
	inner := scopes[len(scopes)-1]
	d.Message = fmt.Sprintf("%s has no field `%s`: its %s is tested with %s", article(inner.Name), n.Name, n.Name, "`"+strings.Join(fields, "`, `")+"`")
	cmp, other, outer := c.parentCompare(n)
	s, ok := other.(*ast.String)
	if cmp == nil || !ok {
		return d, true
	}
	var field string
	for _, f := range fields {
		if schema.NormalKey(f) == prefix+schema.NormalKey(s.Value) {
			field = f
		}
	}
	if field == "" {
		return d, true
	}
	fix := field
	if cmp.Op == ast.OpNe {
		fix = "not " + field
		if u, ok := outer.(*ast.Unary); ok && u.Op == ast.OpNot {
			fix = "(" + fix + ")"
		}
	}
	d.Message = fmt.Sprintf("%s has no field `%s`: its %s is tested with %s; write `%s`", article(inner.Name), n.Name, n.Name, "`"+strings.Join(fields, "`, `")+"`", fix)
	return d.WithSugarFix(cmp.Sp, fix), true
}
