package typecheck

import (
	"slices"
	"strings"

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
		msg := d.Message
		for _, f := range d.Fixes {
			cost := len(src) - f.Span.Len() + len(f.Text)
			switch {
			case fixes <= 0 || bytes < cost:
			case FixChecks(cfg, src, f, parse):
				kept = append(kept, f)
			case f.Sugar:
				// A sugar form over a name that is sugar too (`fileId in (1,
				// 2)`): the fix with the inner rewrites applied.
				if text, ok := lowerWithin(cfg, src, f.Span, f.Text, parse, false); ok {
					msg = retext(msg, f.Text, text)
					f.Text = text
					kept = append(kept, f)
				}
			}
			fixes, bytes = fixes-1, bytes-cost
		}
		if slices.Equal(kept, d.Fixes) {
			continue
		}
		if out == nil {
			out = slices.Clone(diags)
		}
		out[i].Fixes = kept
		out[i].Message = msg
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

// maxLowerWithin bounds the rounds of lowerWithin.
const maxLowerWithin = 4

// lowerWithin returns repl, the text a fix writes over sp of src, with the
// sugar fixes of the errors it causes applied when each lies inside it
// (the in-list `fileId = 1 or fileId = 2` is `id of file = 1 or id of file
// = 2`), and whether the result checks without an error in the replaced
// text. With strict, the fixed query must parse without any error; else a
// syntax error elsewhere leaves only the replaced text's syntax checked, as
// FixChecks does.
func lowerWithin(cfg Config, src string, sp diag.Span, repl string, parse func(string) (ast.Expr, diag.List), strict bool) (string, bool) {
	if sp.Start < 0 || sp.End > len(src) || sp.Start > sp.End {
		return "", false
	}
	for range maxLowerWithin {
		fixed := src[:sp.Start] + repl + src[sp.End:]
		region := diag.Span{Start: sp.Start, End: sp.Start + len(repl)}
		tree, pd := parse(fixed)
		if errorAt(pd, region) || tree == nil || strict && pd.HasErrors() {
			return "", false
		}
		if pd.HasErrors() {
			return repl, true
		}
		var inner []diag.Fix
		for _, d := range Check(cfg, fixed, tree).Diags {
			if d.Severity != diag.Error || !errorAt(diag.List{d}, region) {
				continue
			}
			i := slices.IndexFunc(d.Fixes, func(f diag.Fix) bool {
				return f.Sugar && region.Start <= f.Span.Start && f.Span.End <= region.End
			})
			if i < 0 {
				return "", false
			}
			f := d.Fixes[i]
			if !slices.ContainsFunc(inner, func(g diag.Fix) bool { return f.Span.Start < g.Span.End && g.Span.Start < f.Span.End }) {
				inner = append(inner, f)
			}
		}
		if len(inner) == 0 {
			return repl, true
		}
		// From the end of the text, so the spans before stay put.
		slices.SortFunc(inner, func(a, b diag.Fix) int { return b.Span.Start - a.Span.Start })
		for _, f := range inner {
			a, b := f.Span.Start-region.Start, f.Span.End-region.Start
			repl = repl[:a] + f.Text + repl[b:]
		}
	}
	return "", false
}

// retext replaces, in a message, the text of a fix that was rewritten
// (with or without its outer parentheses) by the rewritten text.
func retext(msg, old, text string) string {
	if strings.Contains(msg, "`"+old+"`") {
		return strings.ReplaceAll(msg, "`"+old+"`", "`"+text+"`")
	}
	o, ok1 := strings.CutPrefix(old, "(")
	t, ok2 := strings.CutPrefix(text, "(")
	if ok1 && ok2 && strings.HasSuffix(o, ")") && strings.HasSuffix(t, ")") {
		return strings.ReplaceAll(msg, "`"+o[:len(o)-1]+"`", "`"+t[:len(t)-1]+"`")
	}
	return msg
}
