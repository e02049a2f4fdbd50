package typecheck

import (
	"slices"

	"github.com/croql/croql/ast"
	"github.com/croql/croql/diag"
)

// MaxCheckedFixes bounds how many fixes of one query CheckFixes re-checks,
// and MaxCheckedBytes the text they re-check in all (so a long query gets
// fewer); the fixes past either are not offered. Each costs a parse and a
// check of the query.
const (
	MaxCheckedFixes = 32
	MaxCheckedBytes = 256 << 10
)

// CheckFixes returns diags (the diagnostics of src) with null tests made
// specific to their subject (FixNullTests) and every fix of an error
// re-checked: a fix is kept only when the text with it applied, parsed
// with parse and checked under cfg, has no error that overlaps the
// replaced text. When the fixed text still has a syntax error elsewhere
// (another spelling the query has), only its syntax is checked: the types
// are checked once that error is fixed too. So applying a fix removes its
// diagnostic, and a fix of a query's only error yields a query that checks
// clean, unless a logic error was hidden behind a syntax error (the
// checker runs only on text that parses). A hint that is the text of a
// fix that does not check ("write `...`") is dropped with it. Warnings'
// fixes are kept as they are.
func CheckFixes(cfg Config, src string, diags diag.List, parse func(string) (ast.Expr, diag.List)) diag.List {
	if !diags.HasErrors() {
		return diags
	}
	if slices.ContainsFunc(diags, func(d diag.Diagnostic) bool { return d.Code == diag.ClassSyntax }) {
		diags = FixNullTests(cfg, src, diags, parse)
	}
	var out diag.List
	fixes, bytes := MaxCheckedFixes, MaxCheckedBytes
	for i, d := range diags {
		if d.Severity != diag.Error || len(d.Fixes) == 0 {
			continue
		}
		var kept []diag.Fix
		for _, f := range d.Fixes {
			cost := len(src) - f.Span.Len() + len(f.Text)
			if fixes > 0 && bytes >= cost && FixChecks(cfg, src, f, parse) {
				kept = append(kept, f)
			}
			fixes, bytes = fixes-1, bytes-cost
		}
		if len(kept) == len(d.Fixes) {
			continue
		}
		if out == nil {
			out = slices.Clone(diags)
		}
		out[i].Fixes = kept
		// A hint that is the text of a fix that does not check goes with it.
		for _, f := range d.Fixes {
			if d.Hint == "write `"+f.Text+"`" && !slices.Contains(kept, f) {
				out[i].Hint = ""
			}
		}
	}
	if out == nil {
		return diags
	}
	return out
}

// FixChecks reports whether src with f applied parses (with parse) and
// checks (under cfg) without an error overlapping the replaced text. When
// the fixed text has a syntax error elsewhere, only the syntax is checked.
func FixChecks(cfg Config, src string, f diag.Fix, parse func(string) (ast.Expr, diag.List)) bool {
	if f.Span.Start < 0 || f.Span.End > len(src) || f.Span.Start > f.Span.End {
		return false
	}
	fixed := src[:f.Span.Start] + f.Text + src[f.Span.End:]
	region := diag.Span{Start: f.Span.Start, End: f.Span.Start + len(f.Text)}
	tree, pd := parse(fixed)
	if errorAt(pd, region) {
		return false
	}
	if pd.HasErrors() || tree == nil {
		return tree != nil || pd.HasErrors()
	}
	return !errorAt(Check(cfg, fixed, tree).Diags, region)
}

// errorAt reports whether an error of ds overlaps sp (an empty span, such
// as the end of the text, overlaps the spans it is in or at the edge of).
func errorAt(ds diag.List, sp diag.Span) bool {
	for _, d := range ds {
		if d.Severity != diag.Error {
			continue
		}
		e := d.Span
		if e.Start < sp.End && sp.Start < e.End || e.Start == e.End && sp.Start <= e.Start && e.Start <= sp.End {
			return true
		}
	}
	return false
}
