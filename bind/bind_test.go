package bind_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql"
	"github.com/croql/croql/bind"
	"github.com/croql/croql/demo"
	"github.com/croql/croql/diag"
	"github.com/croql/croql/internal/corpus"
	"github.com/croql/croql/schema"
)

// The service's own types of TestAgreesWithSchemaTypes: other Go types
// than the schema's (int32, int, time.Time, pointers to elements), other
// field names, embedding, and fields left unbound.
type (
	myString struct {
		base
		Kind         string           `croql:"type is asset"` // binds every `type is ...`
		Key          string           `croql:"identifier"`
		Ctx          string           `croql:"context"`
		Max          *int             `croql:"max length"`
		Dup          bool             `croql:"is duplicate"`
		File         *myFile          `croql:"file"`
		Branch       *myBranch        `croql:"branch"`
		Comments     []myComment      `croql:"comments"`
		Translations []*myTranslation `croql:"translations"`
		Labels       []myLabel        `croql:"labels"`
		Added        time.Time        `croql:"added"`
		Updated      *time.Time       `croql:"updated"`
		// languages summary, screenshots and custom fields are not bound.
	}
	base struct {
		Body   string `croql:"text"`
		Hidden bool   `croql:"is visible"` // binds `is hidden` too
	}
	myFile struct {
		ID    int32   `croql:"id"`
		Name  string  `croql:"name"`
		Title *string `croql:"title"`
		Type  string  `croql:"type"`
		Ctx   string  `croql:"context"`
	}
	myBranch struct {
		ID    int64   `croql:"id"`
		Name  string  `croql:"name"`
		Title *string `croql:"title"`
	}
	myComment struct {
		Issue      bool  `croql:"has issue"`
		Unresolved bool  `croql:"has unresolved issue"`
		Author     int64 `croql:"user"`
	}
	myTranslation struct {
		Body       string       `croql:"text"`
		Form       string       `croql:"plural form"`
		Pre        bool         `croql:"is pre translated"`
		Provider   *string      `croql:"provider"`
		Lang       string       `croql:"language"`
		Author     int          `croql:"user"`
		Votes      []myVote     `croql:"votes"`
		Approvals  []myApproval `croql:"approvals"`
		LastChange int64        `croql:"updated"` // Unix seconds
	}
	myVote struct {
		Mark  string    `croql:"is up"`
		User  uint32    `croql:"user"`
		Added time.Time `croql:"added"`
	}
	myApproval struct {
		User  int16     `croql:"user"`
		Added time.Time `croql:"added"`
	}
	myLabel struct {
		ID     int    `croql:"id"`
		Title  string `croql:"title"`
		System bool   `croql:"is system"`
	}
)

func tm(t schema.Time) time.Time { return time.Unix(int64(t), 0).UTC() }

// mine converts a schema string into the service's type.
func mine(s *schema.SourceString) myString {
	m := myString{base: base{Body: s.Text, Hidden: s.IsHidden}, Kind: s.Type, Key: s.Identifier, Ctx: s.Context,
		Dup: s.IsDuplicate, Added: tm(s.Added)}
	if s.MaxLength != nil {
		v := int(*s.MaxLength)
		m.Max = &v
	}
	if s.Updated != nil {
		u := tm(*s.Updated)
		m.Updated = &u
	}
	if f := s.File; f != nil {
		m.File = &myFile{ID: int32(f.ID), Name: f.Name, Title: f.Title, Type: f.Type, Ctx: f.Context}
	}
	if b := s.Branch; b != nil {
		m.Branch = &myBranch{ID: b.ID, Name: b.Name, Title: b.Title}
	}
	for _, c := range s.Comments {
		m.Comments = append(m.Comments, myComment{Issue: c.HasIssue, Unresolved: c.HasUnresolvedIssue, Author: c.User})
	}
	for _, tr := range s.Translations {
		mt := &myTranslation{Body: tr.Text, Form: tr.PluralForm, Pre: tr.IsPreTranslated, Provider: tr.Provider,
			Lang: tr.Language, Author: int(tr.User), LastChange: int64(tr.Updated)}
		for _, v := range tr.Votes {
			mt.Votes = append(mt.Votes, myVote{Mark: v.Mark, User: uint32(v.User), Added: tm(v.Added)})
		}
		for _, a := range tr.Approvals {
			mt.Approvals = append(mt.Approvals, myApproval{User: int16(a.User), Added: tm(a.Added)})
		}
		m.Translations = append(m.Translations, mt, nil) // a nil element is no element
	}
	for _, l := range s.Labels {
		m.Labels = append(m.Labels, myLabel{ID: int(l.ID), Title: l.Title, System: l.IsSystem})
	}
	return m
}

// TestAgreesWithSchemaTypes: every query of the seed patterns and of the
// hand-checked fixture corpus in the strings context gives, over the
// service's own types, what it gives over the schema types; a query
// reading a field the binding lacks is an unbound-field diagnostic.
func TestAgreesWithSchemaTypes(t *testing.T) {
	b, err := bind.New[myString](croql.Strings)
	require.NoError(t, err)
	projects := map[string]*schema.Project{"demo": demo.Default()}
	f, err := os.Open(filepath.Join("..", "testdata", "fixtures", "small.json"))
	require.NoError(t, err)
	projects["small"], err = schema.ReadProject(f)
	f.Close()
	require.NoError(t, err)

	var cases []corpus.Case
	for _, file := range []string{"seed_patterns.txt", "fixture_small.txt", "logic.txt", "operators.txt"} {
		cs, err := corpus.LoadFile(filepath.Join("..", "testdata", "corpus", file))
		require.NoError(t, err)
		cases = append(cases, cs...)
	}
	compared, unbound, matches := 0, 0, 0
	for _, c := range cases {
		if c.Context() != croql.Strings || c.Has("diag") && strings.Contains(strings.Join(c.All("diag"), " "), "error") || c.Query() == "" {
			continue
		}
		for name, p := range projects {
			opts := []croql.Option{croql.WithUserIDs(p.UserIDs()), croql.WithLanguages("de", "fr", "uk", "ja", "es"),
				croql.WithClock(func() time.Time { return time.Date(2024, 6, 15, 0, 0, 0, 0, time.UTC) })}
			if c.Edition() == "enterprise" {
				opts = append(opts, croql.WithEdition(croql.Enterprise))
			}
			env, err := croql.NewEnv(croql.Strings, opts...)
			require.NoError(t, err)
			plain, diags := env.Compile(c.Query())
			if diags.HasErrors() {
				continue // not a query of this data (an unknown user, say)
			}
			q, diags := bind.Compile(env, b, c.Query())
			if diags.HasErrors() {
				for _, d := range diags.Errors() {
					assert.Equal(t, bind.RuleUnbound, d.Rule, "%s: %v", c.Query(), d)
					assert.True(t, d.Span.End > d.Span.Start && d.Span.End <= len(c.Query()))
				}
				unbound++
				continue
			}
			for i := range p.Strings {
				s := &p.Strings[i]
				m := mine(s)
				want, err := plain.Match(s)
				require.NoError(t, err)
				if want {
					matches++
				}
				got, err := q.Match(&m)
				require.NoError(t, err)
				assert.Equal(t, want, got, "%s on %s string %d", c.Query(), name, s.ID)
			}
			compared++
		}
	}
	t.Logf("%d queries compared (%d matches), %d refused as unbound", compared, matches, unbound)
	assert.Greater(t, compared, 60)
	assert.Greater(t, matches, 200)
	assert.Greater(t, unbound, 5, "queries reading languages summary or screenshots")
}

func TestNewRefusesBadBindings(t *testing.T) {
	type unknownField struct {
		X string `croql:"txet"`
	}
	_, err := bind.New[unknownField](croql.Strings)
	assert.ErrorContains(t, err, `"txet" is not a field of source string; did you mean "text"?`)

	type twice struct {
		A bool `croql:"is hidden"`
		B bool `croql:"is visible"`
	}
	_, err = bind.New[twice](croql.Strings)
	assert.ErrorContains(t, err, "both bind")

	type wrongType struct {
		X string `croql:"max length"`
	}
	_, err = bind.New[wrongType](croql.Strings)
	assert.ErrorContains(t, err, "an integer takes")

	type pointerNeverAbsent struct {
		X *string `croql:"text"`
	}
	_, err = bind.New[pointerNeverAbsent](croql.Strings)
	assert.ErrorContains(t, err, "never absent")

	type wideUnsigned struct {
		X uint64 `croql:"max length"`
	}
	_, err = bind.New[wideUnsigned](croql.Strings)
	assert.ErrorContains(t, err, "uint8 to uint32")

	type unexported struct {
		x string `croql:"text"`
	}
	_ = unexported{x: ""} // the field is the test: it is refused
	_, err = bind.New[unexported](croql.Strings)
	assert.ErrorContains(t, err, "not exported")

	type badCollection struct {
		X string `croql:"translations"`
	}
	_, err = bind.New[badCollection](croql.Strings)
	assert.ErrorContains(t, err, "slice or array")

	_, err = bind.New[int](croql.Strings)
	assert.ErrorContains(t, err, "must be a struct")
	_, err = bind.New[myString]("nope")
	assert.ErrorContains(t, err, "unknown context")
}

func TestCompileReportsUnboundFields(t *testing.T) {
	type onlyText struct {
		Text  string          `croql:"text"`
		Trans []onlyTransLang `croql:"translations"`
	}
	b, err := bind.New[onlyText](croql.Strings)
	require.NoError(t, err)
	env, err := croql.NewEnv(croql.Strings)
	require.NoError(t, err)

	src := `text = "a" and max length > 3 and count of translations where (provider = "deepl") > 0`
	q, diags := bind.Compile(env, b, src)
	assert.Nil(t, q)
	var got []string
	for _, d := range diags {
		require.Equal(t, bind.RuleUnbound, d.Rule)
		require.Equal(t, diag.Error, d.Severity)
		got = append(got, src[d.Span.Start:d.Span.End])
	}
	assert.Equal(t, []string{"max length", "provider"}, got)
	assert.Contains(t, diags[0].Hint, `croql:"max length"`)

	q, diags = bind.Compile(env, b, `text = "a" and count of translations where (language = "de") > 0`)
	require.False(t, diags.HasErrors(), "%v", diags)
	v := onlyText{Text: "a", Trans: []onlyTransLang{{Lang: "fr"}, {Lang: "de"}}}
	assert.True(t, match(t, q, &v))
	v.Trans = v.Trans[:1]
	assert.False(t, match(t, q, &v))

	// Errors of the query come first, unchanged.
	_, diags = bind.Compile(env, b, `txet = "a"`)
	require.NotEmpty(t, diags)
	assert.Equal(t, "unknown-field", diags[0].Rule)

	// The environment must be of the binding's context.
	tm, err := croql.NewEnv(croql.TM)
	require.NoError(t, err)
	_, diags = bind.Compile(tm, b, `text = "a"`)
	require.Len(t, diags, 1)
	assert.Contains(t, diags[0].Message, "strings context")
}

type onlyTransLang struct {
	Lang string `croql:"language"`
}

// TestNilEmbeddedPointer: a bound field behind a nil embedded pointer
// reads as the zero value, without a panic.
func TestNilEmbeddedPointer(t *testing.T) {
	type Inner struct {
		Text string `croql:"text"`
	}
	type outer struct {
		*Inner
		Hidden bool `croql:"is hidden"`
	}
	b, err := bind.New[outer](croql.Strings)
	require.NoError(t, err)
	env, _ := croql.NewEnv(croql.Strings)
	q, diags := bind.Compile(env, b, `text = "" and is hidden`)
	require.False(t, diags.HasErrors(), "%v", diags)
	assert.True(t, match(t, q, &outer{Hidden: true}))
	assert.False(t, match(t, q, &outer{Inner: &Inner{Text: "x"}, Hidden: true}))
}

// match is q.Match(v) for a v that is not nil: no error.
func match[T any](t *testing.T, q *bind.Query[T], v *T) bool {
	t.Helper()
	ok, err := q.Match(v)
	require.NoError(t, err)
	return ok
}

// TestMatchNil: a nil *T is an error wrapping croql.ErrMisuse that names
// the type, not a false; Filter never passes one.
func TestMatchNil(t *testing.T) {
	type onlyText struct {
		Text string `croql:"text"`
	}
	b, err := bind.New[onlyText](croql.Strings)
	require.NoError(t, err)
	env, _ := croql.NewEnv(croql.Strings)
	// A query that holds for the zero value: a nil read as a zero value
	// would answer true.
	q, diags := bind.Compile(env, b, `text = ""`)
	require.False(t, diags.HasErrors(), "%v", diags)
	ok, err := q.Match(nil)
	require.ErrorIs(t, err, croql.ErrMisuse)
	assert.False(t, ok)
	assert.Contains(t, err.Error(), "a nil *bind_test.onlyText")
	assert.True(t, match(t, q, &onlyText{}))
	assert.Len(t, q.Filter([]onlyText{{}, {Text: "x"}, {}}), 2)
}
