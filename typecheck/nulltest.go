package typecheck

import (
	"fmt"
	"slices"
	"strings"

	"github.com/croql/croql/ast"
	"github.com/croql/croql/diag"
)

// RuleNullTest is the parser's rule for `X is null`, `X is not null`,
// `X is empty`, `X is not empty`, `X is absent` and `X is not absent`,
// which CroQL does not have.
const RuleNullTest = "null-test"

// FixNullTests returns diags with every null-test diagnostic of src made
// specific to the type of its subject: the message says what to write
// for that type, and a fix replaces the subject and its `is null` with it.
// A fix is offered only when the query with the fix applied parses with
// parse (the caller's parser) and checks under cfg without an error in
// the replaced text, so every fix type-checks; a null test whose subject
// cannot be found that way (another syntax error in the query, say) keeps
// the parser's general message. The forms are exact, by the rules of absent values
// (docs/language.md): for a number F, `F is null` is
// `not (F >= 0 or F < 0)` (an ordering with an absent operand is false);
// for a string `not (F >= "")`; for a datetime
// `not (F >= '1970-01-01' or F < '1970-01-01')`; for a bool
// `(F != true and F != false)` (= is null-safe, != is its negation); for
// an object or a user, the same test on `id of F`; for a collection, which
// is never absent, `count of F = 0`. `is empty` is `F = ""` for a string
// and `count of F = 0` for a collection.
func FixNullTests(cfg Config, src string, diags diag.List, parse func(string) (ast.Expr, diag.List)) diag.List {
	// A fix needs the query to parse with it: with another syntax error
	// none can, so none is looked for.
	syntax := 0
	for _, d := range diags {
		if d.Code == diag.ClassSyntax && d.Severity == diag.Error {
			syntax++
		}
	}
	if syntax != 1 {
		return diags
	}
	var out diag.List
	for i, d := range diags {
		if d.Rule != RuleNullTest || d.Code != diag.ClassSyntax || d.Span.Start < 0 || d.Span.End > len(src) || d.Span.Start >= d.Span.End {
			continue
		}
		words := strings.Fields(strings.ToLower(src[d.Span.Start:d.Span.End]))
		if len(words) < 2 {
			continue
		}
		what, negated := words[len(words)-1], slices.Contains(words, "not")
		if out == nil {
			out = slices.Clone(diags)
		}
		out[i] = fixNullTest(cfg, src, d, what, negated, parse)
	}
	if out == nil {
		return diags
	}
	return out
}

// maxSubjectWords bounds how far back the subject of a null test is
// looked for.
const maxSubjectWords = 12

func fixNullTest(cfg Config, src string, d diag.Diagnostic, what string, negated bool, parse func(string) (ast.Expr, diag.List)) diag.Diagnostic {
	// A form fits when the query with it parses and checks without an
	// error in the form: the subject's type is known only from a check.
	// A subject that is sugar itself (the API name `updatedAt`) is
	// rewritten inside the form.
	fits := func(a int, repl string) (string, bool) {
		return lowerWithin(cfg, src, diag.Span{Start: a, End: d.Span.End}, repl, parse, true)
	}
	// Subjects are tried shortest first: each start of a word before the
	// `is`, going back.
	words := 0
	for a := d.Span.Start - 1; a >= 0 && words < maxSubjectWords; a-- {
		if a > 0 && !isSubjectBoundary(src[a-1]) || isSubjectBoundary(src[a]) {
			continue
		}
		words++
		subject := strings.TrimSpace(src[a:d.Span.Start])
		for _, form := range nullForms(what, negated) {
			if repl, ok := fits(a, form(subject)); ok {
				phrase := "is " + what
				if negated {
					phrase = "is not " + what
				}
				d.Message = fmt.Sprintf("CroQL has no `%s`: for `%s` write `%s`", phrase, subject, repl)
				d.Hint = ""
				if what != "empty" {
					d.Hint = "an ordering with an absent value is false, and = is null-safe (absent = absent is true)"
				}
				d.Fixes = []diag.Fix{{Span: diag.Span{Start: a, End: d.Span.End}, Text: repl, Sugar: true}}
				return d
			}
		}
	}
	return d
}

func isSubjectBoundary(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '('
}

// nullForms returns the replacements of `F is [not] null|empty`, one per
// kind of F; at most one of them type-checks for a given F.
func nullForms(what string, negated bool) []func(f string) string {
	if what == "empty" {
		if negated {
			return []func(string) string{
				func(f string) string { return f + ` != ""` },
				func(f string) string { return "count of " + f + " > 0" },
			}
		}
		return []func(string) string{
			func(f string) string { return f + ` = ""` },
			func(f string) string { return "count of " + f + " = 0" },
		}
	}
	present := []func(string) string{
		func(f string) string { return "(" + f + " >= 0 or " + f + " < 0)" },
		func(f string) string { return f + ` >= ""` },
		func(f string) string { return "(" + f + " >= '1970-01-01' or " + f + " < '1970-01-01')" },
		func(f string) string { return "(" + f + " = true or " + f + " = false)" },
		func(f string) string { return "(id of " + f + " >= 0 or id of " + f + " < 0)" },
	}
	if negated {
		return append(present, func(f string) string { return "count of " + f + " > 0" })
	}
	absent := []func(string) string{
		func(f string) string { return "not (" + f + " >= 0 or " + f + " < 0)" },
		func(f string) string { return "not (" + f + ` >= "")` },
		func(f string) string { return "not (" + f + " >= '1970-01-01' or " + f + " < '1970-01-01')" },
		func(f string) string { return "(" + f + " != true and " + f + " != false)" },
		func(f string) string { return "not (id of " + f + " >= 0 or id of " + f + " < 0)" },
		func(f string) string { return "count of " + f + " = 0" },
	}
	return absent
}
