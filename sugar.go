package croql

import (
	"slices"

	"github.com/croql/croql/diag"
)

// Lowering is one rewrite Env.Lower made: a sugar form and the platform's
// CroQL it was rewritten to.
type Lowering struct {
	// Rule is the rule of the diagnostic whose fix was applied (in-list,
	// null-test, bad-datetime, not-bool, unknown-field, and the misspelt
	// operators' double-equals, angle-not-equal, double-ampersand,
	// double-bar, bang-not, unexpected-char).
	Rule string `json:"rule"`
	// From is the text the fix replaced, To the text it wrote.
	From string `json:"from"`
	To   string `json:"to"`
	// Message is the diagnostic's message; a relative date's states the
	// clock the date was computed from.
	Message string `json:"message"`
}

// maxLowerRounds bounds the checks Lower makes: each round applies the
// sugar fixes of one check (those that do not overlap), and the next
// round checks the result.
const maxLowerRounds = 64

// Lower rewrites the sugar of src (docs/language.md, "Sugar": in-lists,
// null tests, relative dates, bare text, API names) into the platform's
// CroQL, by applying the fixes the diagnostics mark diag.Fix.Sugar until
// none is left. It returns the rewritten text, each rewrite in the order
// made, and the diagnostics of the rewritten text: an empty list when it
// is valid CroQL, else the errors that are not sugar (a misspelt field is
// not guessed at) or a sugar form whose fix does not check. A relative
// date is read from the environment's clock (WithClock) once, when Lower
// runs: the rewritten query names that date.
func (e *Env) Lower(src string) (string, []Lowering, diag.List) {
	var done []Lowering
	cur := src
	for range maxLowerRounds {
		diags := e.check(cur).Diags
		type pick struct {
			d diag.Diagnostic
			f diag.Fix
		}
		var picks []pick
		for _, d := range diags {
			if d.Severity != diag.Error {
				continue
			}
			i := slices.IndexFunc(d.Fixes, func(f diag.Fix) bool { return f.Sugar })
			if i < 0 {
				continue
			}
			f := d.Fixes[i]
			if slices.ContainsFunc(picks, func(p pick) bool {
				return f.Span.Start < p.f.Span.End && p.f.Span.Start < f.Span.End
			}) {
				continue
			}
			picks = append(picks, pick{d, f})
		}
		if len(picks) == 0 {
			return cur, done, diags
		}
		// Apply from the end of the text, so the spans before stay put.
		slices.SortFunc(picks, func(a, b pick) int { return b.f.Span.Start - a.f.Span.Start })
		for _, p := range picks {
			done = append(done, Lowering{Rule: p.d.Rule, From: cur[p.f.Span.Start:p.f.Span.End], To: p.f.Text, Message: p.d.Message})
			cur = cur[:p.f.Span.Start] + p.f.Text + cur[p.f.Span.End:]
		}
		// The rewrites in text order within a round.
		slices.Reverse(done[len(done)-len(picks):])
	}
	return cur, done, e.check(cur).Diags
}
