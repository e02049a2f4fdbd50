package eval_test

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/croql/croql/eval"
	"github.com/croql/croql/internal/corpus"
	"github.com/croql/croql/schema"
)

// Packed types: the schema's objects bound with the compact forms, a
// collection as a pointer and a uint32 count (a len tag), bools as the
// bits of a byte array (a bits tag), ints, datetimes and user ids as
// uint32s and strings behind pointers that are never nil, in orders of
// their own, so that the bits fall in several bytes and at several
// positions.

type pString struct {
	Flags                               [1]uint8 `croql:"bits=IsPassedWorkflow,IsDuplicate,IsHidden"`
	ID                                  int64
	Type                                string
	Text                                string
	Identifier                          string
	Context                             *string
	MaxLength                           *int64
	File                                *schema.File
	Branch                              *schema.Branch
	NComments                           uint32
	Comments                            *pComment           `croql:"len=NComments"`
	Screenshots                         *schema.Screenshot  `croql:"len=NScreenshots"`
	Translations                        *pTranslation       `croql:"len=NTranslations"`
	LanguagesSummary                    *pSummary           `croql:"len=NLanguagesSummary"`
	Labels                              *schema.Label       `croql:"len=NLabels"`
	Fields                              *schema.CustomField `croql:"len=NFields"`
	Added                               uint32
	Updated                             *schema.Time
	PluralForms                         string
	NScreenshots                        uint32
	NTranslations                       uint32
	NLanguagesSummary, NLabels, NFields uint32
}

type pComment struct {
	ID    int64
	Text  string
	User  uint32
	Added uint32
	Bits  [1]uint8 `croql:"bits=HasUnresolvedIssue,HasIssue"`
}

type pTranslation struct {
	ID                 int64
	StringID           int64
	Text               string
	PluralForm         *string
	Provider           *string
	Language           string
	User               uint32
	Votes              *pVote           `croql:"len=NVotes"`
	Approvals          *schema.Approval `croql:"len=NApprovals"`
	Added              schema.Time
	Updated            uint32
	NApprovals, NVotes uint32
	Flags              [1]uint8 `croql:"bits=IsPreTranslated"`
}

type pVote struct {
	User  uint32
	Added uint32
	Mark  *string
}

type pSummary struct {
	Rating             int64
	Bits               [5]uint8 `croql:"bits=HasMDXSyntaxQAIssues,HasOutdatedTranslationQAIssues,HasAIQAIssues,HasNumbersMismatchQAIssues,HasCustomQAIssues,HasAndroidSyntaxQAIssues,HasFTLSyntaxQAIssues,HasDuplicateTranslationQAIssues,HasTermsQAIssues,HasICUSyntaxQAIssues,HasSpellingQAIssues,HasIncorrectTranslationQAIssues,HasSpecialCharactersMismatchQAIssues,HasCharacterCaseMismatchQAIssues,HasPunctuationMismatchQAIssues,HasVariablesMismatchQAIssues,HasSpacesMismatchQAIssues,HasTagsMismatchQAIssues,HasTranslationLengthQAIssues,HasEmptyTranslationQAIssues,HasQAIssues,HasSharedTranslation,HasTranslationAfterApproval,HasTranslationAsSource,IsSourceChangedAfterTranslation,IsTranslatedByAI,IsTranslatedByMT,IsTranslatedByTM,IsAutoTranslated,IsPartiallyApproved,IsApproved,IsPartiallyTranslated,IsTranslated"`
	Language           *string
	TranslationUpdated *schema.Time
	ApprovalsCount     uint32
}

// packedCatalog is the schema's catalog with the packed types in place
// of the schema's.
func packedCatalog() *schema.Catalog {
	types := map[reflect.Type]reflect.Type{
		reflect.TypeFor[schema.SourceString]():    reflect.TypeFor[pString](),
		reflect.TypeFor[schema.Comment]():         reflect.TypeFor[pComment](),
		reflect.TypeFor[schema.Translation]():     reflect.TypeFor[pTranslation](),
		reflect.TypeFor[schema.LanguageSummary](): reflect.TypeFor[pSummary](),
		reflect.TypeFor[schema.Vote]():            reflect.TypeFor[pVote](),
	}
	cat := schema.New()
	for _, o := range cat.Objects {
		if t, ok := types[o.GoType]; ok {
			o.GoType = t
		}
	}
	return cat
}

// copyFields copies the fields of src (a struct) that dst (a pointer to a
// struct) has with the same type, as a uint32 for an int64 (which must
// fit) or as a pointer to a copy for a string, and sets the bits a bits
// tag of dst names for the bools of src that are true.
func copyFields(dst, src any) {
	d, s := reflect.ValueOf(dst).Elem(), reflect.ValueOf(src)
	for i := range d.NumField() {
		sf := d.Type().Field(i)
		if list, ok := strings.CutPrefix(sf.Tag.Get("croql"), "bits="); ok {
			for j, n := range strings.Split(list, ",") {
				if s.FieldByName(n).Bool() {
					b := d.Field(i).Index(j / 8)
					b.SetUint(b.Uint() | 1<<(j%8))
				}
			}
			continue
		}
		v := s.FieldByName(sf.Name)
		switch {
		case !v.IsValid():
		case v.Type() == sf.Type:
			d.Field(i).Set(v)
		case sf.Type.Kind() == reflect.Uint32 && v.Kind() == reflect.Int64:
			if v.Int() < 0 || v.Int() > math.MaxUint32 {
				panic(fmt.Sprintf("%s = %d does not fit a uint32", sf.Name, v.Int()))
			}
			d.Field(i).SetUint(uint64(v.Int()))
		case sf.Type == reflect.TypeFor[*string]() && v.Kind() == reflect.String:
			str := v.String()
			d.Field(i).Set(reflect.ValueOf(&str))
		}
	}
}

// packMany packs each element of xs with pack.
func packMany[S, P any](xs []S, pack func(*S) P) (*P, uint32) {
	if len(xs) == 0 {
		return nil, 0
	}
	out := make([]P, len(xs))
	for i := range xs {
		out[i] = pack(&xs[i])
	}
	return unsafe.SliceData(out), uint32(len(out))
}

func same[T any](x *T) T { return *x }

func packTranslation(t *schema.Translation) pTranslation {
	var p pTranslation
	copyFields(&p, *t)
	p.Votes, p.NVotes = packMany(t.Votes, func(v *schema.Vote) pVote {
		var x pVote
		copyFields(&x, *v)
		return x
	})
	p.Approvals, p.NApprovals = packMany(t.Approvals, same)
	return p
}

func packString(s *schema.SourceString) *pString {
	p := &pString{}
	copyFields(p, *s)
	p.Comments, p.NComments = packMany(s.Comments, func(c *schema.Comment) pComment {
		var x pComment
		copyFields(&x, *c)
		return x
	})
	p.Screenshots, p.NScreenshots = packMany(s.Screenshots, same)
	p.Translations, p.NTranslations = packMany(s.Translations, packTranslation)
	p.LanguagesSummary, p.NLanguagesSummary = packMany(s.LanguagesSummary, func(l *schema.LanguageSummary) pSummary {
		var x pSummary
		copyFields(&x, *l)
		return x
	})
	p.Labels, p.NLabels = packMany(s.Labels, same)
	p.Fields, p.NFields = packMany(s.Fields, same)
	return p
}

// TestPackedAnswersAsTheSchema: every strings and translations query of
// the corpus and of the stress set, compiled for types whose collections
// are counted pointers and whose bools are bits, answers on the packed
// copies of the demo data as it does on the schema's types, with and
// without the optimising layer and through Typed.Func.
func TestPackedAnswersAsTheSchema(t *testing.T) {
	std, packed := schema.New(), packedCatalog()
	data, users := demoData()
	dir := map[int64]string{}
	for _, u := range users {
		dir[u.ID] = u.Login
	}
	objs := map[string][]any{}
	for _, o := range data[schema.CtxStrings] {
		objs[schema.CtxStrings] = append(objs[schema.CtxStrings], packString(o.(*schema.SourceString)))
	}
	for _, o := range data[schema.CtxTranslations] {
		p := packTranslation(o.(*schema.Translation))
		objs[schema.CtxTranslations] = append(objs[schema.CtxTranslations], &p)
	}
	cases, err := corpus.Load("../testdata/corpus")
	require.NoError(t, err)
	type query struct{ ctx, src, edition string }
	var qs []query
	for _, c := range cases {
		if !c.Has("diag") && c.Get("stage") != "parse" && (c.Context() == schema.CtxStrings || c.Context() == schema.CtxTranslations) {
			qs = append(qs, query{c.Context(), c.Query(), c.Edition()})
		}
	}
	// Counts against the ends of the int64 range (an empty range).
	for _, src := range []string{`count of translations > 9223372036854775807`, `count of translations < 0`,
		`count of translations >= 0`, `count of translations != -1`, `count of translations > 2 and count of translations < 9223372036854775807`,
		`not (count of comments > 9223372036854775807) and count of translations > 9223372036854775807`,
		`count of translations where (count of votes > 9223372036854775807 or count of approvals < 1) > 1`} {
		qs = append(qs, query{schema.CtxStrings, src, "enterprise"})
	}
	for _, ctx := range []string{schema.CtxStrings, schema.CtxTranslations} {
		for _, src := range stressQueries[ctx] {
			qs = append(qs, query{ctx, src, "enterprise"})
		}
	}
	matched := 0
	for _, q := range qs {
		logins := map[string]int64{}
		qdir := map[int64]string{}
		for id, l := range dir {
			logins[l], qdir[id] = id, l
		}
		for i, l := range mentionedUsers(t, std, q.ctx, q.src) {
			if _, ok := logins[l]; !ok {
				logins[l], qdir[int64(5000+i)] = int64(5000+i), l
			}
		}
		o := checkOpts{users: logins}
		if q.edition == "enterprise" {
			o.edition = schema.Enterprise
		}
		want, err := eval.Compile(check(t, std, q.ctx, q.src, o), eval.WithUsers(qdir))
		require.NoError(t, err, q.src)
		pq := check(t, packed, q.ctx, q.src, o)
		fast, err := eval.Compile(pq, eval.WithUsers(qdir))
		require.NoError(t, err, q.src)
		plain, err := eval.Compile(pq, eval.WithUsers(qdir), eval.WithoutOptimizations())
		require.NoError(t, err, q.src)
		var fn func(*pString) bool
		if q.ctx == schema.CtxStrings {
			tp, err := eval.Bind[pString](fast)
			require.NoError(t, err, q.src)
			fn = tp.Func()
			require.False(t, fn(nil), q.src)
		}
		for i, obj := range data[q.ctx] {
			w := want.Match(obj)
			p := objs[q.ctx][i]
			require.Equal(t, w, fast.Match(p), "%s: object %d of %s", q.src, i, q.ctx)
			require.Equal(t, w, plain.Match(p), "%s: object %d of %s (plain)", q.src, i, q.ctx)
			if fn != nil {
				require.Equal(t, w, fn(p.(*pString)), "%s: object %d (Typed.Func)", q.src, i)
			}
			if w {
				matched++
			}
		}
	}
	require.Greater(t, len(qs), 100)
	require.Greater(t, matched, 1000, "the queries match some objects")
}

// TestPackedMalformedTags: a query does not compile over types whose
// croql tags are malformed, and the error says what is wrong.
func TestPackedMalformedTags(t *testing.T) {
	type notArray struct {
		Bits uint8 `croql:"bits=IsHidden,IsDuplicate"`
	}
	type tooMany struct {
		Bits [1]uint8 `croql:"bits=IsHidden,IsDuplicate,A,B,C,D,E,F,G"`
	}
	type twice struct {
		Bits [1]uint8 `croql:"bits=IsHidden,IsHidden,IsDuplicate"`
	}
	type empty struct {
		Bits [1]uint8 `croql:"bits=IsHidden,,IsDuplicate"`
	}
	type shadowed struct {
		IsHidden bool
		Bits     [1]uint8 `croql:"bits=IsHidden,IsDuplicate"`
	}
	type unknownKey struct {
		Bits [1]uint8 `croql:"flags=IsHidden,IsDuplicate"`
	}
	type notABool struct {
		Bits [1]uint8 `croql:"bits=IsHidden,Text"`
	}
	type tagOnScalar struct {
		Text string `croql:"len=N"`
		N    uint32
	}
	type wideCount struct {
		Translations  *schema.Translation `croql:"len=NTranslations"`
		NTranslations int64
	}
	type missingCount struct {
		Translations *schema.Translation `croql:"len=NTranslations"`
	}
	type counts struct{ NTranslations uint32 }
	type promotedCount struct {
		counts
		Translations *schema.Translation `croql:"len=NTranslations"`
	}
	type noTag struct {
		Translations *schema.Translation
	}
	type emptyTag struct {
		Translations  *schema.Translation `croql:"len="`
		NTranslations uint32
	}
	type sliceWithTag struct {
		Translations  []schema.Translation `croql:"len=NTranslations"`
		NTranslations uint32
	}
	type nullableNarrow struct {
		Updated *uint32
	}
	type narrowInt struct {
		Added uint16
	}
	for _, c := range []struct {
		typ         reflect.Type
		query, want string
	}{
		{reflect.TypeFor[nullableNarrow](), `updated > '2024-01-01'`, "use *int64 for a nullable one"},
		{reflect.TypeFor[narrowInt](), `added > '2024-01-01'`, "which cannot hold a datetime"},
		{reflect.TypeFor[notArray](), `is duplicate`, "a bits tag takes a [N]uint8"},
		{reflect.TypeFor[tooMany](), `is duplicate`, "names 9 bits, more than its 1 bytes hold"},
		{reflect.TypeFor[twice](), `is duplicate`, "names IsHidden twice"},
		{reflect.TypeFor[empty](), `is duplicate`, "has no name"},
		{reflect.TypeFor[shadowed](), `is duplicate`, "which is a Go field"},
		{reflect.TypeFor[unknownKey](), `is duplicate`, "neither bits=NAMES nor len=NAME"},
		{reflect.TypeFor[notABool](), `text = "a"`, "not a bool"},
		{reflect.TypeFor[tagOnScalar](), `text = "a"`, "only a collection's pointer takes"},
		{reflect.TypeFor[wideCount](), `count of translations > 0`, "the count must be a uint32"},
		{reflect.TypeFor[missingCount](), `count of translations > 0`, "which is no field of"},
		{reflect.TypeFor[promotedCount](), `count of translations > 0`, "which is no field of"},
		{reflect.TypeFor[noTag](), `count of translations > 0`, `want croql:"len=NAME"`},
		{reflect.TypeFor[emptyTag](), `count of translations > 0`, `want croql:"len=NAME"`},
		{reflect.TypeFor[sliceWithTag](), `count of translations > 0`, `want []schema.Translation, or *schema.Translation with a croql:"len=NAME" tag`},
	} {
		cat := schema.New()
		for _, o := range cat.Objects {
			if o.GoType == reflect.TypeFor[schema.SourceString]() {
				o.GoType = c.typ
			}
		}
		q := check(t, cat, schema.CtxStrings, c.query, checkOpts{edition: schema.Enterprise})
		_, err := eval.Compile(q)
		require.ErrorContains(t, err, c.want, "%s over %s", c.query, c.typ)
	}
}
