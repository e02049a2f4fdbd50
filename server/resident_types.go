package server

import (
	"context"
	"fmt"
	"os"
	"reflect"

	"github.com/croql/croql"
	"github.com/croql/croql/eval"
	"github.com/croql/croql/parser"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/typecheck"
)

// The resident snapshot's own object types. The evaluator reads an
// object's fields by the GoName of each catalog field, at the offset its
// object's Go type gives (eval binds them when it compiles), so the
// snapshot holds types of its own that have the fields queries read, with
// the schema's Go types, and not the others: a string's plural forms, a
// comment's id, text and date, a translation's string id and date added,
// a TM record's language. Its queries are checked and compiled against a
// catalog whose objects have these Go types (residentCatalog). The
// objects the schema's types serve whole (a vote, a label, a languages
// summary element, a glossary term, ...) keep them.

// resString is a source string in the snapshot.
//
// Its id is apart (snapshot.ids): the struct is 256 bytes, a size the
// address of an element of a slice of them is cheapest to compute for.
type resString struct {
	Type             string
	Text             string
	Identifier       string
	Context          string
	MaxLength        *int64
	File             *schema.File
	Branch           *schema.Branch
	Comments         []resComment
	Screenshots      []schema.Screenshot
	Translations     []resTranslation
	LanguagesSummary []schema.LanguageSummary
	Labels           []schema.Label
	Fields           []schema.CustomField
	Added            schema.Time
	Updated          *schema.Time
	IsHidden         bool
	IsDuplicate      bool
	IsPassedWorkflow bool
}

// resComment is a comment on a string in the snapshot.
type resComment struct {
	User               int64
	HasIssue           bool
	HasUnresolvedIssue bool
}

// resTranslation is a translation in the snapshot: an element of a
// string's translations and an object of the translations list.
type resTranslation struct {
	// ID is the translation's id (no query reads it; the translations
	// list reads the page's rows by it).
	ID              int64
	Text            string
	PluralForm      string
	Language        string
	Provider        *string
	User            int64
	Votes           []schema.Vote
	Approvals       []schema.Approval
	Updated         schema.Time
	IsPreTranslated bool
}

// resSegment is a TM segment in the snapshot.
type resSegment struct {
	ID      int64
	Records []resRecord
}

// resRecord is a TM record in the snapshot.
type resRecord struct {
	ID         int64
	Text       string
	UsageCount int64
	CreatedBy  int64
	UpdatedBy  int64
	CreatedAt  schema.Time
	UpdatedAt  schema.Time
}

// residentTypes are the schema's Go types the snapshot holds in types of
// its own.
func residentTypes() map[reflect.Type]reflect.Type {
	return map[reflect.Type]reflect.Type{
		reflect.TypeFor[schema.SourceString](): reflect.TypeFor[resString](),
		reflect.TypeFor[schema.Comment]():      reflect.TypeFor[resComment](),
		reflect.TypeFor[schema.Translation]():  reflect.TypeFor[resTranslation](),
		reflect.TypeFor[schema.TMSegment]():    reflect.TypeFor[resSegment](),
		reflect.TypeFor[schema.TMRecord]():     reflect.TypeFor[resRecord](),
	}
}

// residentCatalog is the catalog whose objects have the snapshot's Go
// types: what its queries are checked and compiled against. It fails
// when a field a query may read has no Go field of the schema's Go type
// (the snapshot's own type for the schema's types it replaces) in the
// snapshot's type.
func residentCatalog() (*schema.Catalog, error) {
	std, cat := schema.New(), schema.New()
	types := residentTypes()
	for _, o := range cat.Objects {
		if t, ok := types[o.GoType]; ok {
			o.GoType = t
		}
	}
	for i, o := range cat.Objects {
		for _, f := range o.Fields {
			sf, ok := o.GoType.FieldByName(f.GoName)
			if !ok {
				return nil, fmt.Errorf("server: resident %s has no field %s (%q)", o.GoType, f.GoName, f.Name)
			}
			want := residentField(std.Objects[i].GoType, f.GoName, types)
			if sf.Type != want {
				return nil, fmt.Errorf("server: resident %s.%s is %s, the schema's is %s", o.GoType, f.GoName, sf.Type, want)
			}
		}
	}
	return cat, nil
}

// residentField is the Go type the snapshot's type of t has for field
// goName: t's, with the element of a slice or pointer that types
// replaces replaced.
func residentField(t reflect.Type, goName string, types map[reflect.Type]reflect.Type) reflect.Type {
	sf, _ := t.FieldByName(goName)
	ft := sf.Type
	switch {
	case ft.Kind() == reflect.Slice && types[ft.Elem()] != nil:
		return reflect.SliceOf(types[ft.Elem()])
	case ft.Kind() == reflect.Pointer && types[ft.Elem()] != nil:
		return reflect.PointerTo(types[ft.Elem()])
	}
	return ft
}

// residentProgram compiles src, a query that checks without errors under
// cfg (the request's environment's check configuration), for the
// snapshot: checked again over cat (residentCatalog) in the same context.
// Users are the environment's directory (login to id).
func residentProgram(cfg typecheck.Config, p *parser.Parser, cat *schema.Catalog, src string) (*eval.Program, error) {
	ctx, ok := cat.Context(cfg.Context.Name)
	if !ok {
		return nil, fmt.Errorf("server: no resident context %q", cfg.Context.Name)
	}
	cfg.Catalog, cfg.Context = cat, ctx
	tree, diags := p.Parse(src)
	if diags.HasErrors() || tree == nil {
		return nil, fmt.Errorf("server: resident query: %w", diags.Err())
	}
	q := typecheck.Check(cfg, src, tree)
	if q.Diags.HasErrors() {
		return nil, fmt.Errorf("server: resident query: %w", q.Diags.Err())
	}
	var opts []eval.Option
	if cfg.Users != nil {
		dir := make(map[int64]string, len(cfg.Users))
		for login, id := range cfg.Users {
			dir[id] = login
		}
		opts = append(opts, eval.WithUserLogins(dir))
	}
	prog, err := eval.Compile(q, opts...)
	if err != nil {
		return nil, fmt.Errorf("server: resident query: %w", err)
	}
	return prog, nil
}

// ResidentStrings reads the project file name (JSON or NDJSON) into the
// resident snapshot's layout, as croql serve --data holds it, and
// compiles src, a query of the strings context, for it with env's
// settings (users, languages, edition, clock): strs are the snapshot's
// strings in id order and match the evaluator's func over one of them
// (eval.Typed.Func), what a list request answered from the snapshot runs
// on each string. It is for measuring the evaluator on the snapshot
// (bench/cmd/instrcount -layout resident).
func ResidentStrings(ctx context.Context, name string, env *croql.Env, src string) (strs []resString, match func(*resString) bool, err error) {
	if env.Context().Name != croql.Strings {
		return nil, nil, fmt.Errorf("server: the environment's context is %s, not %s", env.Context().Name, croql.Strings)
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, nil, fmt.Errorf("server: %w", err)
	}
	defer f.Close()
	data, err := readWithin(ctx, f, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("server: %s: %w", name, err)
	}
	sn, err := newSnapshot(data, 0)
	if err != nil {
		return nil, nil, err
	}
	cat, err := residentCatalog()
	if err != nil {
		return nil, nil, err
	}
	prog, err := residentProgram(env.CheckConfig(), env.Parser(), cat, src)
	if err != nil {
		return nil, nil, err
	}
	t, err := eval.Bind[resString](prog)
	if err != nil {
		return nil, nil, fmt.Errorf("server: %w", err)
	}
	return sn.strings, t.Func(), nil
}

// ResidentString is a source string as the resident snapshot holds it
// (ResidentStrings): the fields queries read, with the schema's Go
// types.
type ResidentString = resString

// bitset is a set of small non-negative ints; nil is empty.
type bitset []uint64

func (b bitset) has(i int) bool { return b != nil && b[i>>6]&(1<<(i&63)) != 0 }

// heavyOf marks the objs heavy reports (nil when there is none).
func heavyOf[T any](objs []T, heavy func(*T) bool) bitset {
	var b bitset
	for i := range objs {
		if heavy(&objs[i]) {
			if b == nil {
				b = make(bitset, (len(objs)+63)/64)
			}
			b[i>>6] |= 1 << (i & 63)
		}
	}
	return b
}

// An object is heavy when an evaluation may take long on it: text longer
// than heavyText bytes (a contains over it), or more than heavyElems
// collection elements. The evaluator looks at the request's deadline
// inside such an evaluation (eval.Program.MatchContext); the walks look
// at it between objects, every checkEvery.
const (
	heavyText  = 4 << 10
	heavyElems = 1024
)

func long(ss ...string) bool {
	for _, s := range ss {
		if len(s) > heavyText {
			return true
		}
	}
	return false
}

func heavyString(s *resString) bool {
	n := len(s.Comments) + len(s.Screenshots) + len(s.Translations) + len(s.LanguagesSummary) + len(s.Labels) + len(s.Fields)
	if long(s.Type, s.Text, s.Identifier, s.Context) {
		return true
	}
	if s.File != nil && long(s.File.Name, s.File.Type, s.File.Context) || s.Branch != nil && long(s.Branch.Name) {
		return true
	}
	for i := range s.Translations {
		t := &s.Translations[i]
		n += len(t.Votes) + len(t.Approvals)
		if long(t.Text) {
			return true
		}
	}
	for _, x := range s.Screenshots {
		if long(x.Name) {
			return true
		}
	}
	for _, x := range s.Labels {
		if long(x.Title) {
			return true
		}
	}
	for _, x := range s.Fields {
		if long(x.Name, x.Slug, x.Value, x.Type) {
			return true
		}
	}
	return n > heavyElems
}

func heavySegment(s *resSegment) bool {
	for _, r := range s.Records {
		if long(r.Text) {
			return true
		}
	}
	return len(s.Records) > heavyElems
}

func heavyTerm(t *schema.GlossaryTerm) bool {
	return long(t.Text, t.Description, t.Note, t.Lemma, t.URL, t.Language)
}
