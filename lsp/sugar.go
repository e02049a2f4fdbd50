package lsp

import (
	"slices"

	"github.com/croql/croql"
	"github.com/croql/croql/diag"
)

// pastSugar returns the diagnostics that the syntax errors of sugar forms
// in src hide: the checker runs only on text that parses, so `fileId in
// (1, 2) and is hiden` would show the in-list alone. When every syntax
// error of diags has a sugar fix (an in-list, a null test) and the fixes
// do not overlap, the text with them applied is checked, and its
// diagnostics outside the rewritten text are returned at their places in
// src (with their fixes outside it). Otherwise it returns nil.
func pastSugar(env *croql.Env, src string, diags diag.List) diag.List {
	var fixes []diag.Fix
	for _, d := range diags {
		if d.Code != diag.ClassSyntax || d.Severity != diag.Error {
			continue
		}
		i := slices.IndexFunc(d.Fixes, func(f diag.Fix) bool { return f.Sugar })
		if i < 0 {
			return nil
		}
		f := d.Fixes[i]
		if f.Span.Start < 0 || f.Span.End > len(src) || f.Span.Start > f.Span.End || slices.ContainsFunc(fixes, func(g diag.Fix) bool {
			return f.Span.Start < g.Span.End && g.Span.Start < f.Span.End
		}) {
			return nil
		}
		fixes = append(fixes, f)
	}
	if len(fixes) == 0 {
		return nil
	}
	slices.SortFunc(fixes, func(a, b diag.Fix) int { return a.Span.Start - b.Span.Start })
	fixed, at := "", 0
	for _, f := range fixes {
		fixed += src[at:f.Span.Start] + f.Text
		at = f.Span.End
	}
	fixed += src[at:]
	// back maps a span of fixed to src; false when it overlaps a rewrite.
	back := func(sp diag.Span) (diag.Span, bool) {
		shift := 0 // len(fixed) - len(src) before the current rewrite
		for _, f := range fixes {
			start := f.Span.Start + shift
			end := start + len(f.Text)
			if sp.End <= start {
				break
			}
			if sp.Start < end {
				return diag.Span{}, false
			}
			shift += len(f.Text) - f.Span.Len()
		}
		return diag.Span{Start: sp.Start - shift, End: sp.End - shift}, true
	}
	_, found := env.Check(fixed)
	var out diag.List
	for _, d := range found {
		if d.Code == diag.ClassSyntax {
			continue
		}
		sp, ok := back(d.Span)
		if !ok {
			continue
		}
		d.Span = sp
		var kept []diag.Fix
		for _, f := range d.Fixes {
			if fs, ok := back(f.Span); ok {
				f.Span = fs
				kept = append(kept, f)
			}
		}
		d.Fixes = kept
		if !slices.ContainsFunc(diags, func(x diag.Diagnostic) bool {
			return x.Span == d.Span && x.Rule == d.Rule && x.Message == d.Message
		}) {
			out = append(out, d)
		}
	}
	return out
}
