// Package bench compares croql's in-memory evaluator with two general
// expression engines, github.com/expr-lang/expr and cel.dev/cel-go, and
// with hand-written Go, on the seed's query patterns over the same Go
// structs (source strings of a generated demo project).
//
// Every pattern is written once per engine ([Pattern]); [Build] compiles
// it once into a [Matcher]; the tests assert that the four engines agree
// on every object for every pattern, and the benchmarks
// (BenchmarkPattern/<pattern>/<engine>) measure one evaluation per
// operation, reported as ns/object and allocs/object. `go run
// ./cmd/benchtable` prints the comparison as a Markdown table.
//
// This is a module of its own so that the library's go.mod does not carry
// the peer engines.
package bench

import (
	"strings"

	"github.com/croql/croql/schema"
)

// The demo project's users that the patterns name (demo.Generate gives
// alice id 11 and erin, a proofreader, id 15).
const (
	aliceID = 11
	erinID  = 15
)

// Pattern is one query in each engine's language. The four forms must
// select exactly the same objects.
type Pattern struct {
	// Name is the sub-benchmark name.
	Name string
	// CroQL is the query in the strings context.
	CroQL string
	// Expr is the expr-lang expression over a *schema.SourceString env.
	Expr string
	// CEL is the CEL expression over the variable s of type
	// schema.SourceString (native Go types).
	CEL string
	// Hand is the same predicate written in Go.
	Hand func(*schema.SourceString) bool
}

// Patterns returns the compared patterns: the seed's query patterns with
// nested where and count, mentions, null objects and datetimes. Each peer
// form is the engine's idiomatic spelling: `count of X where (p) > 0` is
// any/exists, `= 0` is none/!exists, and "every translation by alice" is
// all/all.
func Patterns() []Pattern {
	return []Pattern{
		{
			Name:  "count-eq-3",
			CroQL: `count of translations = 3`,
			Expr:  `len(Translations) == 3`,
			CEL:   `size(s.Translations) == 3`,
			Hand:  func(s *schema.SourceString) bool { return len(s.Translations) == 3 },
		},
		{
			Name:  "key-and-file",
			CroQL: `identifier = "checkout.title" and id of file = 1`,
			Expr:  `Identifier == "checkout.title" && File != nil && File.ID == 1`,
			CEL:   `s.Identifier == "checkout.title" && has(s.File) && s.File.ID == 1`,
			Hand: func(s *schema.SourceString) bool {
				return s.Identifier == "checkout.title" && s.File != nil && s.File.ID == 1
			},
		},
		{
			Name:  "file-unresolved-issues",
			CroQL: `id of file = 1 and count of comments where (has unresolved issue) > 0`,
			Expr:  `File != nil && File.ID == 1 && any(Comments, .HasUnresolvedIssue)`,
			CEL:   `has(s.File) && s.File.ID == 1 && s.Comments.exists(c, c.HasUnresolvedIssue)`,
			Hand: func(s *schema.SourceString) bool {
				if s.File == nil || s.File.ID != 1 {
					return false
				}
				for i := range s.Comments {
					if s.Comments[i].HasUnresolvedIssue {
						return true
					}
				}
				return false
			},
		},
		{
			Name:  "hidden-nondup-translated",
			CroQL: `is hidden and not is duplicate and count of translations > 0`,
			Expr:  `IsHidden && !IsDuplicate && len(Translations) > 0`,
			CEL:   `s.IsHidden && !s.IsDuplicate && size(s.Translations) > 0`,
			Hand: func(s *schema.SourceString) bool {
				return s.IsHidden && !s.IsDuplicate && len(s.Translations) > 0
			},
		},
		{
			Name:  "approved-by-user",
			CroQL: `count of translations where (count of approvals where (user = @user:"erin") > 0) > 0`,
			Expr:  `any(Translations, any(.Approvals, .User == 15))`,
			CEL:   `s.Translations.exists(t, t.Approvals.exists(a, a.User == 15))`,
			Hand: func(s *schema.SourceString) bool {
				for i := range s.Translations {
					for _, a := range s.Translations[i].Approvals {
						if a.User == erinID {
							return true
						}
					}
				}
				return false
			},
		},
		{
			Name:  "translated-not-approved",
			CroQL: `count of languages summary where (is translated and not is approved) > 0`,
			Expr:  `any(LanguagesSummary, .IsTranslated && !.IsApproved)`,
			CEL:   `s.LanguagesSummary.exists(l, l.IsTranslated && !l.IsApproved)`,
			Hand: func(s *schema.SourceString) bool {
				for i := range s.LanguagesSummary {
					if l := &s.LanguagesSummary[i]; l.IsTranslated && !l.IsApproved {
						return true
					}
				}
				return false
			},
		},
		{
			Name:  "source-contains-no-translation-does",
			CroQL: `text contains "Café" and count of translations where (text contains "Café") = 0`,
			Expr:  `Text contains "Café" && none(Translations, .Text contains "Café")`,
			CEL:   `s.Text.contains("Café") && !s.Translations.exists(t, t.Text.contains("Café"))`,
			Hand: func(s *schema.SourceString) bool {
				if !strings.Contains(s.Text, "Café") {
					return false
				}
				for i := range s.Translations {
					if strings.Contains(s.Translations[i].Text, "Café") {
						return false
					}
				}
				return true
			},
		},
		{
			Name:  "no-approved-or-voted-de",
			CroQL: `count of translations where (language = @language:"de" and (count of approvals > 0 or count of votes > 0)) = 0`,
			Expr:  `none(Translations, .Language == "de" && (len(.Approvals) > 0 || len(.Votes) > 0))`,
			CEL:   `!s.Translations.exists(t, t.Language == "de" && (size(t.Approvals) > 0 || size(t.Votes) > 0))`,
			Hand: func(s *schema.SourceString) bool {
				for i := range s.Translations {
					t := &s.Translations[i]
					if t.Language == "de" && (len(t.Approvals) > 0 || len(t.Votes) > 0) {
						return false
					}
				}
				return true
			},
		},
		{
			Name:  "only-translations-by-user",
			CroQL: `count of translations > 0 and count of translations = count of translations where (user = @user:"alice")`,
			Expr:  `len(Translations) > 0 && all(Translations, .User == 11)`,
			CEL:   `size(s.Translations) > 0 && s.Translations.all(t, t.User == 11)`,
			Hand: func(s *schema.SourceString) bool {
				if len(s.Translations) == 0 {
					return false
				}
				for i := range s.Translations {
					if s.Translations[i].User != aliceID {
						return false
					}
				}
				return true
			},
		},
		{
			Name:  "added-in-period",
			CroQL: `added between '2024-01-01 00:00:00' and '2024-01-31 23:59:59'`,
			Expr:  `int(Added) >= 1704067200 && int(Added) <= 1706745599`,
			CEL:   `s.Added >= 1704067200 && s.Added <= 1706745599`,
			Hand:  func(s *schema.SourceString) bool { return s.Added >= 1704067200 && s.Added <= 1706745599 },
		},
		{
			Name:  "max-length-null",
			CroQL: `not max length > 10`,
			Expr:  `MaxLength == nil || MaxLength <= 10`,
			CEL:   `!has(s.MaxLength) || s.MaxLength <= 10`,
			Hand:  func(s *schema.SourceString) bool { return s.MaxLength == nil || *s.MaxLength <= 10 },
		},
	}
}
