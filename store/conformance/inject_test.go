package compile_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/compile"
	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/store"
	"github.com/croql/croql/typecheck"
)

// hostile are literals that would break or subvert SQL built by string
// concatenation.
var hostile = []string{
	`'`, `''`, `"`, `\`, `\'`, `\\'`, "`",
	`'; DROP TABLE strings; --`, `" OR 1=1 --`, `') OR ('1'='1`,
	`%`, `_`, `%_%`, `a%`, `\%`, `[a-z]`, `^.*$`,
	`--`, `-- comment`, `/*`, `*/`, `/* x */`, `#`, `;`,
	`$1`, `?`, `:name`, `@user`,
	"line\nbreak", "tab\there", "cr\rhere",
	"nul\x00byte", "\x00",
	"\xff\xfe not utf-8", "trail\xc3",
	"ärger ÜBER", "İstanbul", "ſ", "日本語", "🙂",
	"  padded  ", "trailing ", "",
	strings.Repeat("long'text\\", 10000),
}

// hostileTemplates hold the literal X in every position a string literal
// can take; the X constants of the checked query are replaced by each
// hostile value.
var hostileTemplates = []struct{ context, query string }{
	{"strings", `text = "X"`},
	{"strings", `text != "X"`},
	{"strings", `text contains "X"`},
	{"strings", `"X" contains text`},
	{"strings", `"X" contains "X"`},
	{"strings", `identifier < "X" or identifier >= "X"`},
	{"strings", `context between "X" and "X"`},
	{"strings", `"X" = "X"`},
	{"strings", `name of file = "X" or title of file != "X"`},
	{"strings", `(if is hidden then text else "X") = "X"`},
	{"strings", `count of translations where (text contains "X" and provider != "X") > 0`},
	{"strings", `count of translations where (language = @language:"X") = 0`},
	{"strings", `count of comments where (user = @user:"X") > 0`},
	{"strings", `labels with (title = "X") or count of labels where (title contains "X") > 1`},
	{"strings", `translations with (user with (login = "X"))`},
	{"strings", `text contains "X"`}, // with fold below
	{"glossary", `status = "X" or lemma contains "X"`},
	{"concepts", `subject = "X" or note contains "X"`},
	{"tm", `records with (text = "X")`},
}

// consts calls f on every constant of n's tree.
func consts(n typecheck.Node, f func(*typecheck.Const)) {
	typecheck.Inspect(n, func(n typecheck.Node) {
		if k, ok := n.(*typecheck.Const); ok {
			f(k)
		}
	})
}

// substitute replaces every string constant "X" of q's tree by v.
func substitute(n typecheck.Node, v string) {
	consts(n, func(k *typecheck.Const) {
		if k.S == "X" && (k.T.Kind == schema.String || k.T.Kind == schema.Language || k.Unresolved) {
			k.S = v
		}
	})
}

// resolve resolves the unresolved user mentions of n against p's users
// for the evaluator, as the SQL does against the users table: a login
// nobody has is an id nobody has.
func resolve(n typecheck.Node, p *schema.Project) {
	ids := p.UserIDs()
	consts(n, func(k *typecheck.Const) {
		if k.Unresolved {
			id, ok := ids[k.S]
			if !ok {
				id = math.MinInt64
			}
			k.I, k.Unresolved = id, false
		}
	})
}

// hostileProject is the small fixture plus strings, labels, users,
// glossary entries and TM records holding the hostile values that d can
// store.
func hostileProject(t *testing.T, d compile.Dialect) *schema.Project {
	p := loadFixture(t, "small")
	id := int64(1000)
	for i, v := range hostile {
		if d.CheckString(v) != nil {
			continue
		}
		id++
		s := p.Strings[i%len(p.Strings)]
		s.ID, s.Text, s.Identifier, s.Context = id, v, v+"_key", v
		s.Labels = []schema.Label{{ID: id, Title: v}}
		s.Translations = []schema.Translation{{ID: id, StringID: id, Text: v, Language: "de", PluralForm: "none", User: 1}}
		s.LanguagesSummary = nil
		s.Comments = nil
		p.Strings = append(p.Strings, s)
		p.Users = append(p.Users, schema.UserRef{ID: id, Login: v})
		p.GlossaryTerms = append(p.GlossaryTerms, schema.GlossaryTerm{ID: id, Text: v, Lemma: v, Language: "de"})
		p.GlossaryConcepts = append(p.GlossaryConcepts, schema.GlossaryConcept{ID: id, Subject: v, Note: v})
		p.TMSegments = append(p.TMSegments, schema.TMSegment{ID: id, Records: []schema.TMRecord{{ID: id, Text: v}}})
	}
	require.NoError(t, p.Validate())
	return p
}

// TestInjection puts every hostile literal in every literal position. The
// SQL text is exactly the text compiled for a harmless literal (values are
// only ever parameters), and every engine returns the evaluator's ids over
// data holding the same values; a value an engine cannot hold (NUL or
// invalid UTF-8 in PostgreSQL, invalid UTF-8 in MySQL) is a clear
// compile error wrapping compile.ErrUnrepresentable.
func TestInjection(t *testing.T) {
	m := mapping.Default(schema.New())
	avail := engines(t)
	for _, d := range dialects {
		var db *store.DB
		var p *schema.Project
		if contains(avail, d.Name()) {
			p = hostileProject(t, d)
			db = openLoaded(t, d.Name(), p)
		}
		t.Run(d.Name(), func(t *testing.T) {
			for ti, tmpl := range hostileTemplates {
				fold := ti == len(hostileTemplates)-4
				o := checkOpts{context: tmpl.context, fold: fold}
				base, err := compile.Compile(check(t, tmpl.query, o), d, m)
				require.NoError(t, err)
				// A needle of three characters or more is narrowed by an
				// index of trigrams where there is one: its text is that
				// of a harmless literal as long.
				long := check(t, tmpl.query, o)
				substitute(long.Root, "XYZ")
				baseLong, err := compile.Compile(long, d, m)
				require.NoError(t, err)
				for _, v := range hostile {
					q := check(t, tmpl.query, o)
					substitute(q.Root, v)
					s, err := compile.Compile(q, d, m)
					if d.CheckString(v) != nil {
						require.Error(t, err, "%q with %q", tmpl.query, v)
						assert.True(t, errors.Is(err, compile.ErrUnrepresentable), "%v", err)
						continue
					}
					require.NoError(t, err)
					like := base
					if s.Where != base.Where && utf8.RuneCountInString(v) >= 3 {
						like = baseLong
					}
					require.Equal(t, like.Where, s.Where, "%q with %q changed the SQL text", tmpl.query, v)
					require.Len(t, s.Args, len(like.Args))
					// (Values such as `"` or `$1` are part of every
					// statement's own syntax; equality with the base text
					// above is the proof for them.)
					if v != "" && !strings.Contains(base.Where, v) {
						assert.NotContains(t, s.Where, v, "%q: literal %q in the SQL text", tmpl.query, v)
					}
					if db == nil {
						continue
					}
					if fold && d.Name() != "sqlite" && !compile.LowerFoldSafe(v) {
						// lower() and simple folding disagree on a rune of
						// v (docs/sql.md); TestFoldAgreement pins where.
						continue
					}
					resolve(q.Root, p)
					want := evalIDs(t, q, p)
					got, err := store.RunSQL(context.Background(), db.SQL, s)
					require.NoError(t, err, "%q with %q", tmpl.query, v)
					assert.Equal(t, want, got, "%q with %q (fold %v) on %s", tmpl.query, v, fold, d.Name())
				}
			}
		})
	}
}

// TestUnrepresentableData: loading a value PostgreSQL (or MySQL) cannot
// hold is an error naming the problem, not a crash or a silent change.
func TestUnrepresentableData(t *testing.T) {
	for _, tc := range []struct {
		d compile.Dialect
		v string
	}{
		{compile.Postgres{}, "nul\x00"},
		{compile.Postgres{}, "bad\xff"},
		{compile.MySQL{}, "bad\xff"},
	} {
		require.ErrorIs(t, tc.d.CheckString(tc.v), compile.ErrUnrepresentable)
		if !contains(engines(t), tc.d.Name()) {
			continue
		}
		p := loadFixture(t, "small")
		p.Strings[0].Text = tc.v
		db, err := store.Open(context.Background(), tc.d.Name(), dsnOf(tc.d.Name()))
		require.NoError(t, err)
		err = store.Load(context.Background(), db, mapping.Default(schema.New()), p)
		require.ErrorIs(t, err, compile.ErrUnrepresentable, "%s %q", tc.d.Name(), tc.v)
		require.NoError(t, db.Close())
	}
	// SQLite holds both.
	require.NoError(t, compile.SQLite{}.CheckString("nul\x00 bad\xff"))
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}
