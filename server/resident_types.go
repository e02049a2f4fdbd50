package server

import (
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"unsafe"

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
// objects the schema's types serve whole (a vote, a label, a glossary
// term, ...) keep them.
//
// The evaluator's compact binding forms (package eval) make them smaller
// than the schema's: a collection is a pointer to its first element with
// its count in a uint32 field that the pointer's croql:"len=NAME" tag
// names (8 + 4 bytes where a slice header takes 24), the counts of a
// struct side by side; the bools of a languages summary element are the
// bits of a croql:"bits=..." array (a byte holds 8 of them); an int, a
// datetime or a user id that is never absent and that no bench pattern
// reads in a loop is a uint32 (the compactor refuses a project with a
// value outside its range: the database serves it); and a short string
// that repeats (a type, a language, a plural form, a mark) is a pointer
// to its one copy.

// resString is a source string in the snapshot: 160 bytes on a 64-bit
// machine (256 with slices and the schema's types), with its id apart
// (snapshot.ids).
type resString struct {
	Type             *string
	Text             string
	Identifier       string
	Context          *string
	MaxLength        *int64
	File             *schema.File
	Branch           *schema.Branch
	Comments         *resComment     `croql:"len=NComments"`
	Screenshots      *resScreenshot  `croql:"len=NScreenshots"`
	Translations     *resTranslation `croql:"len=NTranslations"`
	LanguagesSummary *resSummary     `croql:"len=NLanguagesSummary"`
	Labels           *resLabel       `croql:"len=NLabels"`
	Fields           *resField       `croql:"len=NFields"`
	Updated          *schema.Time
	Added            uint32
	// The collections' counts.
	NComments, NScreenshots, NTranslations  uint32
	NLanguagesSummary, NLabels, NFields     uint32
	IsHidden, IsDuplicate, IsPassedWorkflow bool
}

// The collections of a string and of a translation as slices (nil when
// empty).
func (s *resString) comments() []resComment { return unsafe.Slice(s.Comments, s.NComments) }
func (s *resString) screenshots() []resScreenshot {
	return unsafe.Slice(s.Screenshots, s.NScreenshots)
}
func (s *resString) translations() []resTranslation {
	return unsafe.Slice(s.Translations, s.NTranslations)
}
func (s *resString) summary() []resSummary {
	return unsafe.Slice(s.LanguagesSummary, s.NLanguagesSummary)
}
func (s *resString) labels() []resLabel    { return unsafe.Slice(s.Labels, s.NLabels) }
func (s *resString) fields() []resField    { return unsafe.Slice(s.Fields, s.NFields) }
func (t *resTranslation) votes() []resVote { return unsafe.Slice(t.Votes, t.NVotes) }
func (t *resTranslation) approvals() []schema.Approval {
	return unsafe.Slice(t.Approvals, t.NApprovals)
}

// countedOf is xs as a counted collection: its first element (nil when
// empty) and its length. A collection of one object has far fewer than
// 2^32 elements.
func countedOf[T any](xs []T) (*T, uint32) {
	return unsafe.SliceData(xs), uint32(len(xs))
}

// resComment is a comment on a string in the snapshot.
type resComment struct {
	User               uint32
	HasIssue           bool
	HasUnresolvedIssue bool
}

// resScreenshot, resLabel and resField are a string's screenshot, label
// and custom field in the snapshot.
type resScreenshot struct {
	Name *string
	ID   uint32
}

type resLabel struct {
	Title    *string
	ID       uint32
	IsSystem bool
}

type resField struct {
	Name, Slug, Value, Type *string
}

// resTranslation is a translation in the snapshot: an element of a
// string's translations and an object of the translations list. It is 88
// bytes (136 with slices and the schema's types).
type resTranslation struct {
	Text       string
	PluralForm *string
	Language   string
	Provider   *string
	Votes      *resVote         `croql:"len=NVotes"`
	Approvals  *schema.Approval `croql:"len=NApprovals"`
	// idDelta is the translation's id less the snapshot's first
	// (residentData.trBase), a signed 32-bit difference (id). No query
	// reads it; the translations list reads the page's rows by the id.
	idDelta            uint32
	User               uint32
	Updated            uint32
	NVotes, NApprovals uint32
	IsPreTranslated    bool
}

// id is t's id in a snapshot whose first translation id is base.
func (t *resTranslation) id(base int64) int64 { return base + int64(int32(t.idDelta)) }

// resVote is a vote on a translation in the snapshot: 16 bytes where the
// schema's is 32.
type resVote struct {
	Mark  *string
	User  uint32
	Added uint32
}

// resSummary is an element of a string's languages summary in the
// snapshot: schema.LanguageSummary with its 33 bools as the bits of Bits,
// 40 bytes where the schema's is 80.
type resSummary struct {
	Language           *string
	TranslationUpdated *schema.Time
	Rating             int64
	ApprovalsCount     uint32
	Bits               [5]uint8 `croql:"bits=IsTranslated,IsPartiallyTranslated,IsApproved,IsPartiallyApproved,IsAutoTranslated,IsTranslatedByTM,IsTranslatedByMT,IsTranslatedByAI,IsSourceChangedAfterTranslation,HasTranslationAsSource,HasTranslationAfterApproval,HasSharedTranslation,HasQAIssues,HasEmptyTranslationQAIssues,HasTranslationLengthQAIssues,HasTagsMismatchQAIssues,HasSpacesMismatchQAIssues,HasVariablesMismatchQAIssues,HasPunctuationMismatchQAIssues,HasCharacterCaseMismatchQAIssues,HasSpecialCharactersMismatchQAIssues,HasIncorrectTranslationQAIssues,HasSpellingQAIssues,HasICUSyntaxQAIssues,HasTermsQAIssues,HasDuplicateTranslationQAIssues,HasFTLSyntaxQAIssues,HasAndroidSyntaxQAIssues,HasCustomQAIssues,HasNumbersMismatchQAIssues,HasAIQAIssues,HasOutdatedTranslationQAIssues,HasMDXSyntaxQAIssues"`
}

// summaryBits are the bools of m as resSummary's bits, in the order of
// its bits tag (TestSummaryBits checks it).
func summaryBits(m *schema.LanguageSummary) [5]uint8 {
	bools := [...]bool{m.IsTranslated, m.IsPartiallyTranslated, m.IsApproved, m.IsPartiallyApproved, m.IsAutoTranslated,
		m.IsTranslatedByTM, m.IsTranslatedByMT, m.IsTranslatedByAI, m.IsSourceChangedAfterTranslation,
		m.HasTranslationAsSource, m.HasTranslationAfterApproval, m.HasSharedTranslation, m.HasQAIssues,
		m.HasEmptyTranslationQAIssues, m.HasTranslationLengthQAIssues, m.HasTagsMismatchQAIssues,
		m.HasSpacesMismatchQAIssues, m.HasVariablesMismatchQAIssues, m.HasPunctuationMismatchQAIssues,
		m.HasCharacterCaseMismatchQAIssues, m.HasSpecialCharactersMismatchQAIssues, m.HasIncorrectTranslationQAIssues,
		m.HasSpellingQAIssues, m.HasICUSyntaxQAIssues, m.HasTermsQAIssues, m.HasDuplicateTranslationQAIssues,
		m.HasFTLSyntaxQAIssues, m.HasAndroidSyntaxQAIssues, m.HasCustomQAIssues, m.HasNumbersMismatchQAIssues,
		m.HasAIQAIssues, m.HasOutdatedTranslationQAIssues, m.HasMDXSyntaxQAIssues}
	var b [5]uint8
	for i, v := range bools {
		if v {
			b[i/8] |= 1 << (i % 8)
		}
	}
	return b
}

// resSegment is a TM segment in the snapshot.
type resSegment struct {
	ID      int64
	Records []resRecord
}

// resRecord is a TM record in the snapshot: 40 bytes where the schema's
// is 80.
type resRecord struct {
	Text       string
	ID         uint32
	UsageCount uint32
	CreatedBy  uint32
	UpdatedBy  uint32
	CreatedAt  uint32
	UpdatedAt  uint32
}

// resTerm is a glossary term in the snapshot: 144 bytes where the
// schema's is 184.
type resTerm struct {
	ID                                 int64
	Text, Description, Note, Lemma     string
	URL, Language                      *string
	PartOfSpeech, Status, Type, Gender *string
	UpdatedAt                          *schema.Time
	User, ConceptID, CreatedAt         uint32
}

// residentTypes are the schema's Go types the snapshot holds in types of
// its own.
func residentTypes() map[reflect.Type]reflect.Type {
	return map[reflect.Type]reflect.Type{
		reflect.TypeFor[schema.SourceString]():    reflect.TypeFor[resString](),
		reflect.TypeFor[schema.Comment]():         reflect.TypeFor[resComment](),
		reflect.TypeFor[schema.Translation]():     reflect.TypeFor[resTranslation](),
		reflect.TypeFor[schema.TMSegment]():       reflect.TypeFor[resSegment](),
		reflect.TypeFor[schema.TMRecord]():        reflect.TypeFor[resRecord](),
		reflect.TypeFor[schema.LanguageSummary](): reflect.TypeFor[resSummary](),
		reflect.TypeFor[schema.Screenshot]():      reflect.TypeFor[resScreenshot](),
		reflect.TypeFor[schema.Label]():           reflect.TypeFor[resLabel](),
		reflect.TypeFor[schema.CustomField]():     reflect.TypeFor[resField](),
		reflect.TypeFor[schema.Vote]():            reflect.TypeFor[resVote](),
		reflect.TypeFor[schema.GlossaryTerm]():    reflect.TypeFor[resTerm](),
	}
}

// residentCatalog is the catalog whose objects have the snapshot's Go
// types: what its queries are checked and compiled against.
func residentCatalog() (*schema.Catalog, error) {
	return residentCatalogOf(residentTypes())
}

// residentCatalogOf is residentCatalog with the schema's types that types
// replaces replaced. It fails when a field a query may read has no Go
// field of the schema's Go type (the snapshot's own type for the schema's
// types it replaces) in the snapshot's type: a collection is that slice
// or a pointer to its element whose len tag names a uint32 field, a bool
// is a bool or a bit of a bits tag. A bits tag must name only bools of
// the schema's type.
func residentCatalogOf(types map[reflect.Type]reflect.Type) (*schema.Catalog, error) {
	std, cat := schema.New(), schema.New()
	for _, o := range cat.Objects {
		if t, ok := types[o.GoType]; ok {
			o.GoType = t
		}
	}
	for i, o := range cat.Objects {
		st := std.Objects[i].GoType
		if err := residentBits(st, o.GoType); err != nil {
			return nil, err
		}
		for _, f := range o.Fields {
			want := residentField(st, f.GoName, types)
			if err := residentHas(o.GoType, f.GoName, want); err != nil {
				return nil, fmt.Errorf("server: resident %s.%s (%q): %w", o.GoType, f.GoName, f.Name, err)
			}
		}
	}
	return cat, nil
}

// residentHas checks that t, a snapshot type, holds its field name as
// want, the schema's Go type of it: a field of type want; a uint32 for an
// int64 or a schema.Time; a *string for a string; for a slice []E, a *E
// whose len tag names a uint32 field of t; for a bool, a bit of a bits
// tag of t.
func residentHas(t reflect.Type, name string, want reflect.Type) error {
	sf, ok := t.FieldByName(name)
	if !ok {
		if want == reflect.TypeFor[bool]() && bitsOf(t, name) {
			return nil
		}
		return errors.New("no such field")
	}
	switch {
	case sf.Type == want:
		return nil
	case sf.Type == reflect.TypeFor[uint32]() && (want == reflect.TypeFor[int64]() || want == reflect.TypeFor[schema.Time]()):
		return nil // a narrow int (residentNarrow checks its values)
	case sf.Type == reflect.TypeFor[*string]() && want == reflect.TypeFor[string]():
		return nil // a string kept once
	}
	if want.Kind() != reflect.Slice || sf.Type != reflect.PointerTo(want.Elem()) {
		return fmt.Errorf("is %s, the schema's is %s", sf.Type, want)
	}
	n, ok := strings.CutPrefix(sf.Tag.Get("croql"), "len=")
	if !ok {
		return fmt.Errorf("is %s with no len tag for the schema's %s", sf.Type, want)
	}
	if lf, ok := t.FieldByName(n); !ok || lf.Type != reflect.TypeFor[uint32]() {
		return fmt.Errorf("its len tag names %q, which is no uint32 field", n)
	}
	return nil
}

// bitsOf reports whether a bits tag of t names name.
func bitsOf(t reflect.Type, name string) bool {
	for i := range t.NumField() {
		if list, ok := strings.CutPrefix(t.Field(i).Tag.Get("croql"), "bits="); ok && slices.Contains(strings.Split(list, ","), name) {
			return true
		}
	}
	return false
}

// residentBits checks that every name of a bits tag of rt, a snapshot
// type, is a bool of st, the schema's type it replaces, and that the tag
// has room for them.
func residentBits(st, rt reflect.Type) error {
	for i := range rt.NumField() {
		sf := rt.Field(i)
		list, ok := strings.CutPrefix(sf.Tag.Get("croql"), "bits=")
		if !ok {
			continue
		}
		names := strings.Split(list, ",")
		if sf.Type.Kind() != reflect.Array || sf.Type.Elem().Kind() != reflect.Uint8 || len(names) > 8*sf.Type.Len() {
			return fmt.Errorf("server: resident %s.%s is %s, no room for the %d bits its tag names", rt, sf.Name, sf.Type, len(names))
		}
		for _, n := range names {
			if f, ok := st.FieldByName(n); !ok || f.Type != reflect.TypeFor[bool]() {
				return fmt.Errorf("server: resident %s.%s: its bits tag names %q, which is no bool of %s", rt, sf.Name, n, st)
			}
		}
	}
	return nil
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
	n := int(s.NComments) + int(s.NScreenshots) + int(s.NTranslations) + int(s.NLanguagesSummary) + int(s.NLabels) + int(s.NFields)
	if long(*s.Type, s.Text, s.Identifier, *s.Context) {
		return true
	}
	if s.File != nil && long(s.File.Name, s.File.Type, s.File.Context) || s.Branch != nil && long(s.Branch.Name) {
		return true
	}
	trs := s.translations()
	for i := range trs {
		t := &trs[i]
		n += int(t.NVotes) + int(t.NApprovals)
		if long(t.Text) {
			return true
		}
	}
	for _, x := range s.screenshots() {
		if long(*x.Name) {
			return true
		}
	}
	for _, x := range s.labels() {
		if long(*x.Title) {
			return true
		}
	}
	for _, x := range s.fields() {
		if long(*x.Name, *x.Slug, *x.Value, *x.Type) {
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

func heavyTerm(t *resTerm) bool {
	return long(t.Text, t.Description, t.Note, t.Lemma, *t.URL, *t.Language)
}
