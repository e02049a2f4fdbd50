package lsp

import (
	"slices"
	"strings"

	"github.com/croql/croql"
	"github.com/croql/croql/diag"
)

// maxSugarRounds bounds the checks pastSugar makes: a null test gets its
// fix only once it is the query's one syntax error, so each round applies
// the sugar fixes the last check offered.
const maxSugarRounds = 4

// pastSugar returns diags, the diagnostics of src, with what the syntax
// errors of sugar forms hide: the checker runs only on text that parses, so
// `fileId in (1, 2) and is hiden` would show the in-list alone, and a null
// test gets its fix only when it is the query's one syntax error. The sugar
// fixes of the syntax errors (an in-list, a null test, `==`, `&&`, `!`) are
// applied and the result checked again, round after round, until it
// parses. The diagnostics of the rounds that lie outside every rewritten
// text are mapped back to their places in src (with their fixes outside
// it): a logic error is added, and a syntax error of src that had no fix
// takes the fix a later round found for it. diags is returned as it is
// when a round offers no sugar fix or the text does not come to parse.
func pastSugar(env *croql.Env, src string, diags diag.List) diag.List {
	var rounds [][]diag.Fix // each round's fixes, in the text of that round
	var later diag.List     // syntax errors of later rounds, mapped back to src
	cur, found := src, diags
	for r := range maxSugarRounds {
		fixes := sugarFixes(cur, found)
		if len(fixes) == 0 {
			return diags
		}
		if r > 0 {
			for _, d := range found {
				if isSyntaxError(d) {
					if d, ok := mapBack(rounds, d); ok {
						later = append(later, d)
					}
				}
			}
		}
		rounds = append(rounds, fixes)
		cur = applyFixes(cur, fixes)
		_, found = env.Check(cur)
		if !slices.ContainsFunc(found, isSyntaxError) {
			break
		}
	}
	if slices.ContainsFunc(found, isSyntaxError) {
		return diags
	}
	out := slices.Clone(diags)
	final := cur
	for i, d := range out {
		if !isSyntaxError(d) {
			continue
		}
		if len(d.Fixes) > 0 {
			// A first-round fix that writes a name that is sugar too
			// (`(fileId = 1 or fileId = 2)`: the other syntax errors kept it
			// from being checked) takes the rewrites the last check found
			// inside it.
			if k := slices.Index(rounds[0], d.Fixes[0]); k >= 0 {
				if text, ok := lowerInside(rounds, k, final, found); ok {
					out[i].Fixes = slices.Clone(d.Fixes)
					out[i].Fixes[0].Text = text
					out[i].Message = strings.ReplaceAll(d.Message, "`"+unparen(d.Fixes[0].Text)+"`", "`"+unparen(text)+"`")
				}
			}
			continue
		}
		// A syntax error of src without a fix takes the one a later round
		// offered for it (same span and rule).
		j := slices.IndexFunc(later, func(x diag.Diagnostic) bool {
			return x.Span == d.Span && x.Rule == d.Rule && len(x.Fixes) > 0
		})
		if j >= 0 {
			out[i] = later[j]
		}
	}
	for _, d := range found {
		d, ok := mapBack(rounds, d)
		if ok && !slices.ContainsFunc(out, func(x diag.Diagnostic) bool {
			return x.Span == d.Span && x.Rule == d.Rule && x.Message == d.Message
		}) {
			out = append(out, d)
		}
	}
	return out
}

// mapBack maps d, a diagnostic of the text rounds of fixes made, back to
// the text before them, with the fixes that do not overlap a rewrite;
// false when d itself does.
func mapBack(rounds [][]diag.Fix, d diag.Diagnostic) (diag.Diagnostic, bool) {
	back := func(sp diag.Span) (diag.Span, bool) {
		for i := len(rounds) - 1; i >= 0; i-- {
			var ok bool
			if sp, ok = unapply(rounds[i], sp); !ok {
				return diag.Span{}, false
			}
		}
		return sp, true
	}
	sp, ok := back(d.Span)
	if !ok {
		return d, false
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
	return d, true
}

func isSyntaxError(d diag.Diagnostic) bool {
	return d.Code == diag.ClassSyntax && d.Severity == diag.Error
}

// sugarFixes returns the first sugar fix of each syntax error of diags
// that has one and does not overlap another's, in text order.
func sugarFixes(src string, diags diag.List) []diag.Fix {
	var fixes []diag.Fix
	for _, d := range diags {
		if !isSyntaxError(d) {
			continue
		}
		i := slices.IndexFunc(d.Fixes, func(f diag.Fix) bool { return f.Sugar })
		if i < 0 {
			continue
		}
		f := d.Fixes[i]
		if f.Span.Start < 0 || f.Span.End > len(src) || f.Span.Start > f.Span.End || slices.ContainsFunc(fixes, func(g diag.Fix) bool {
			return f.Span.Start < g.Span.End && g.Span.Start < f.Span.End
		}) {
			continue
		}
		fixes = append(fixes, f)
	}
	slices.SortFunc(fixes, func(a, b diag.Fix) int { return a.Span.Start - b.Span.Start })
	return fixes
}

// applyFixes writes fixes, in text order and not overlapping, into src.
func applyFixes(src string, fixes []diag.Fix) string {
	out, at := "", 0
	for _, f := range fixes {
		out += src[at:f.Span.Start] + f.Text
		at = f.Span.End
	}
	return out + src[at:]
}

// unapply maps a span of the text fixes were applied to back to the text
// before; false when it overlaps a rewritten text.
func unapply(fixes []diag.Fix, sp diag.Span) (diag.Span, bool) {
	shift := 0 // length of the fixed text minus the original, before the current fix
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

// lowerInside returns the text of the k-th fix of the first round with the
// sugar fixes that found, the diagnostics of final (the text after every
// round), offers inside it applied; false when the fix's text cannot be
// followed into final, when an error inside it has no sugar fix there, or
// when there is nothing to apply.
func lowerInside(rounds [][]diag.Fix, k int, final string, found diag.List) (string, bool) {
	// The fix's text in the text after the first round.
	shift := 0
	for _, f := range rounds[0][:k] {
		shift += len(f.Text) - f.Span.Len()
	}
	f0 := rounds[0][k]
	region := diag.Span{Start: f0.Span.Start + shift, End: f0.Span.Start + shift + len(f0.Text)}
	for _, fixes := range rounds[1:] {
		var ok bool
		if region, ok = forward(fixes, region); !ok {
			return "", false
		}
	}
	if region.End > len(final) {
		return "", false
	}
	var inner []diag.Fix
	for _, d := range found {
		if d.Severity != diag.Error || !(d.Span.Start < region.End && region.Start < d.Span.End) {
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
		return "", false
	}
	slices.SortFunc(inner, func(a, b diag.Fix) int { return b.Span.Start - a.Span.Start })
	text := final[region.Start:region.End]
	for _, f := range inner {
		text = text[:f.Span.Start-region.Start] + f.Text + text[f.Span.End-region.Start:]
	}
	return text, true
}

// forward maps a span of the text before fixes were applied to the text
// after; false when it overlaps a fix.
func forward(fixes []diag.Fix, sp diag.Span) (diag.Span, bool) {
	shift := 0
	for _, f := range fixes {
		if sp.End <= f.Span.Start {
			break
		}
		if sp.Start < f.Span.End {
			return diag.Span{}, false
		}
		shift += len(f.Text) - f.Span.Len()
	}
	return diag.Span{Start: sp.Start + shift, End: sp.End + shift}, true
}

// unparen is s without one pair of outer parentheses, as a message writes
// a fix's text.
func unparen(s string) string {
	if strings.HasPrefix(s, "(") && strings.HasSuffix(s, ")") {
		return s[1 : len(s)-1]
	}
	return s
}
