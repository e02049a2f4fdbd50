package typecheck

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agnivade/levenshtein"

	"github.com/croql/croql/ast"
	"github.com/croql/croql/diag"
	"github.com/croql/croql/schema"
)

// closest returns up to n candidates nearest to s by edit distance over
// their normal keys, nearest first, within a distance that grows with the
// length of s.
func closest(s string, candidates []string, n int) []string {
	key := schema.NormalKey(s)
	// Short names get two edits (a transposition is two), longer ones a
	// third of their length, at most three.
	limit := 2
	if len(key) > 6 {
		limit = min(3, len(key)/3)
	}
	type scored struct {
		name string
		d    int
	}
	var best []scored
	seen := map[string]bool{}
	for _, c := range candidates {
		ck := schema.NormalKey(c)
		if seen[ck] {
			continue
		}
		seen[ck] = true
		d := levenshtein.ComputeDistance(key, ck)
		if d <= limit {
			best = append(best, scored{c, d})
		}
	}
	slices.SortStableFunc(best, func(a, b scored) int {
		if a.d != b.d {
			return a.d - b.d
		}
		return strings.Compare(a.name, b.name)
	})
	out := make([]string, 0, n)
	for _, b := range best {
		if len(out) == n {
			break
		}
		out = append(out, b.name)
	}
	return out
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
				return d.WithFix(n.Sp, fix)
			}
		}
	}

	// 2. A field of another object: say where it lives, and the way there.
	var owners []string
	for _, o := range c.cfg.Catalog.Objects {
		if f, ok := o.Field(n.Name); ok && !slices.Contains(scopes, o) {
			owners = append(owners, o.Name)
			if path := pathTo(scopes, o); path != "" {
				use := f.Name
				if f.Type.Kind != schema.Bool && !f.BoolAlso {
					use = f.Name + " = ..."
				}
				d.Message = fmt.Sprintf("`%s` is a field of %s, not of %s", n.Name, plural(o.Name), article(inner.Name))
				return d.WithHint("write `count of %s where (%s) > 0`", path, use)
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
