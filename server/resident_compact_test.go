package server

import (
	"bytes"
	"context"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/croql/croql"
	demodata "github.com/croql/croql/demo"
	"github.com/croql/croql/eval"
	"github.com/croql/croql/internal/corpus"
	"github.com/croql/croql/schema"
)

// ownQueries is how many of compactQueries come before the seed's.
const ownQueries = 8

// compactQueries are queries that read the fields the compact layout
// copies with care (the values kept once, the pointers, the shared
// translations), then the seed patterns.
func compactQueries(t *testing.T) []struct{ ctx, query string } {
	_, file, _, _ := runtime.Caller(0)
	cases, err := corpus.LoadFile(filepath.Join(filepath.Dir(filepath.Dir(file)), "testdata", "corpus", "seed_patterns.txt"))
	require.NoError(t, err)
	qs := []struct{ ctx, query string }{
		{croql.Strings, `max length > 20 or updated > '2024-06-01 00:00:00' or context = "Button label on the payment page"`},
		{croql.Strings, `count of labels where (title = "web") > 0 or count of fields where (value = "checkout") > 0`},
		{croql.Strings, `count of screenshots > 0 and count of comments where (has issue) > 0`},
		{croql.Strings, `count of languages summary where (translation updated > '2024-03-01 00:00:00' and rating > 0) > 0`},
		{croql.Strings, `is duplicate and count of translations where (provider = "deepl" and count of votes where (is down) > 0) > 0`},
		{croql.Translations, `plural form = "one" or provider = "tm" or count of approvals > 0`},
		{croql.TM, `count of records where (text contains "a" and usageCount > 2) > 0`},
		{croql.Glossary, `partOfSpeech = "noun" or status = "preferred" or gender = "feminine" or updatedAt > '2024-06-01 00:00:00'`},
	}
	for _, c := range cases {
		if c.Has("diag") || c.Get("stage") == "parse" || c.Edition() == "enterprise" {
			continue
		}
		qs = append(qs, struct{ ctx, query string }{c.Context(), c.Query()})
	}
	return qs
}

// TestCompactLayoutAnswersAsTheDecoded: every query compiled for the
// snapshot (residentProgram) matches the same objects in its compact
// layout as the query compiled for the schema's types in the decoded
// project, whether the snapshot was read from a file (readWithin) or
// copied from memory (compactWithin); its collections hold the decoded
// ones' elements, and a duplicate that shares its master's translations holds the
// master's.
func TestCompactLayoutAnswersAsTheDecoded(t *testing.T) {
	p := demodata.Generate(demodata.Options{Strings: 3000, Seed: 7})
	var file bytes.Buffer
	require.NoError(t, p.WriteNDJSON(&file))
	decoded, err := schema.ReadProjectWith(bytes.NewReader(file.Bytes()), schema.ReadOptions{})
	require.NoError(t, err)
	ctx := context.Background()
	fromFile, err := readWithin(ctx, bytes.NewReader(file.Bytes()), 0)
	require.NoError(t, err)
	fromMemory, err := compactWithin(ctx, decoded, 0)
	require.NoError(t, err)
	snFile, err := newSnapshot(fromFile, 0)
	require.NoError(t, err)
	snMemory, err := newSnapshot(fromMemory, 0)
	require.NoError(t, err)
	cat := schema.New()
	rcat, err := residentCatalog()
	require.NoError(t, err)
	for i, q := range compactQueries(t) {
		env, err := croql.NewEnv(q.ctx, croql.WithUserIDs(p.UserIDs()), croql.WithLanguages(p.LanguageCodes()...), croql.WithEdition(schema.Enterprise))
		require.NoError(t, err)
		cq, diags := env.Compile(q.query)
		require.False(t, diags.HasErrors(), "%s: %v", q.query, diags)
		c, _ := cat.Context(q.ctx)
		want := matches(t, cq, decoded.Objects(c))
		if i < ownQueries {
			require.NotEmpty(t, want, "%s matches nothing: a weak check", q.query)
		}
		prog, err := residentProgram(env.CheckConfig(), env.Parser(), rcat, q.query)
		require.NoError(t, err, q.query)
		require.Equal(t, want, residentMatches(t, prog, snFile, q.ctx), q.query)
		require.Equal(t, want, residentMatches(t, prog, snMemory, q.ctx), q.query)
	}
	shared := 0
	for i := range snFile.strings {
		s := &snFile.strings[i]
		id := snFile.ids[i]
		d := &decoded.Strings[slices.IndexFunc(decoded.Strings, func(x schema.SourceString) bool { return x.ID == id })]
		require.Len(t, s.translations(), len(d.Translations))
		require.Len(t, s.summary(), len(d.LanguagesSummary))
		require.Len(t, s.comments(), len(d.Comments))
		require.Len(t, s.screenshots(), len(d.Screenshots))
		require.Len(t, s.labels(), len(d.Labels))
		require.Len(t, s.fields(), len(d.Fields))
		for j, tr := range s.translations() {
			require.True(t, slices.EqualFunc(tr.votes(), d.Translations[j].Votes, sameVote), "votes of %d", tr.id(snFile.trBase))
			require.True(t, slices.Equal(d.Translations[j].Approvals, tr.approvals()), "approvals of %d", tr.id(snFile.trBase))
		}
		for j := range s.summary() {
			m := &d.LanguagesSummary[j]
			require.Equal(t, summaryBits(m), s.summary()[j].Bits)
			require.Equal(t, m.Rating, s.summary()[j].Rating)
		}
		if len(d.Translations) > 0 && d.Translations[0].StringID != id {
			j, ok := slices.BinarySearch(snFile.ids, d.Translations[0].StringID)
			require.True(t, ok)
			if snFile.strings[j].Translations == s.Translations {
				shared++
			}
		}
	}
	require.NotZero(t, shared, "the demo has duplicates that share their master's translations")
	require.Equal(t, len(snFile.strings), cap(snFile.strings))
}

// residentMatches are the ids of the objects of sn's context ctxName that
// prog keeps, in id order (translations: the translations list's
// objects, in id order).
func residentMatches(t *testing.T, prog *eval.Program, sn *snapshot, ctxName string) []int64 {
	var ids []int64
	add := func(o any, id int64) {
		ok, err := prog.MatchContext(context.Background(), o)
		require.NoError(t, err)
		if ok {
			ids = append(ids, id)
		}
	}
	switch ctxName {
	case croql.Strings:
		for i := range sn.strings {
			add(&sn.strings[i], sn.ids[i])
		}
	case croql.TM:
		for i := range sn.tm {
			add(&sn.tm[i], sn.tm[i].ID)
		}
	case croql.Glossary:
		for i := range sn.terms {
			add(&sn.terms[i], sn.terms[i].ID)
		}
	case croql.Translations:
		for _, es := range sn.trs {
			for _, e := range es {
				_, tr := sn.at(e)
				add(tr, tr.id(sn.trBase))
			}
		}
		slices.Sort(ids)
	default:
		t.Fatalf("no resident context %q", ctxName)
	}
	return ids
}

// matches are the ids of the objects q keeps, in id order.
func matches(t *testing.T, q *croql.Query, objs []any) []int64 {
	var ids []int64
	for _, o := range objs {
		ok, err := q.Match(o)
		require.NoError(t, err)
		if ok {
			id, _ := schema.ObjectID(o)
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

// TestResidentCatalog: the snapshot's catalog binds every field of every
// object to a Go field of the schema's type (the snapshot's own for the
// objects it replaces; a bit of a bits tag for a bool, a counted pointer
// for a collection), and every field the snapshot's types have is one a
// query reads (but the ids the server reads the rows by), the count a len
// tag names or a bits array.
func TestResidentCatalog(t *testing.T) {
	cat, err := residentCatalog()
	require.NoError(t, err)
	read := map[reflect.Type]map[string]bool{}
	for _, o := range cat.Objects {
		if read[o.GoType] == nil {
			read[o.GoType] = map[string]bool{}
		}
		for _, f := range o.Fields {
			read[o.GoType][f.GoName] = true
		}
	}
	for _, rt := range residentTypes() {
		require.NotNil(t, read[rt], "%s is the Go type of no object", rt)
		for i := range rt.NumField() {
			sf := rt.Field(i)
			name, tag := sf.Name, sf.Tag.Get("croql")
			if n, ok := strings.CutPrefix(tag, "len="); ok {
				read[rt][n] = true
			}
			if list, ok := strings.CutPrefix(tag, "bits="); ok {
				for _, n := range strings.Split(list, ",") {
					require.True(t, read[rt][n], "%s.%s: no query reads bit %s", rt, name, n)
				}
				read[rt][name] = true
			}
		}
		for i := range rt.NumField() {
			name := rt.Field(i).Name
			require.True(t, read[rt][name] || name == "ID" || !rt.Field(i).IsExported(), "%s.%s: no query reads it", rt, name)
		}
	}
	// The sizes the comments of the types state, on a 64-bit machine.
	if unsafe.Sizeof(uintptr(0)) == 8 {
		require.Equal(t, uintptr(160), reflect.TypeFor[resString]().Size())
		require.Equal(t, uintptr(88), reflect.TypeFor[resTranslation]().Size())
		require.Equal(t, uintptr(40), reflect.TypeFor[resSummary]().Size())
		require.Equal(t, uintptr(16), reflect.TypeFor[resVote]().Size())
		require.Equal(t, uintptr(40), reflect.TypeFor[resRecord]().Size())
		require.Equal(t, uintptr(144), reflect.TypeFor[resTerm]().Size())
	}
}

// TestResidentCatalogRefuses: the snapshot's catalog is not built when a
// snapshot type lacks a field a query may read, when its bits tag names
// what is no bool of the schema's type, or when a len tag names no uint32
// field.
func TestResidentCatalogRefuses(t *testing.T) {
	type noUser struct {
		HasIssue           bool
		HasUnresolvedIssue bool
	}
	type bogusBit struct {
		User int64
		Bits [1]uint8 `croql:"bits=HasIssue,HasUnresolvedIssue,IsBogus"`
	}
	type notABool struct {
		User int64
		Bits [1]uint8 `croql:"bits=HasIssue,HasUnresolvedIssue,User"`
	}
	type wideCount struct {
		ID       int64
		Records  *resRecord `croql:"len=NRecords"`
		NRecords int64
	}
	type noCount struct {
		ID      int64
		Records *resRecord
	}
	comment, segment := reflect.TypeFor[schema.Comment](), reflect.TypeFor[schema.TMSegment]()
	for _, c := range []struct {
		from, to reflect.Type
		err      string
	}{
		{comment, reflect.TypeFor[noUser](), `User ("user"): no such field`},
		{comment, reflect.TypeFor[bogusBit](), "IsBogus"},
		{comment, reflect.TypeFor[notABool](), `"User", which is no bool`},
		{segment, reflect.TypeFor[wideCount](), "no uint32 field"},
		{segment, reflect.TypeFor[noCount](), "no len tag"},
	} {
		_, err := residentCatalogOf(withType(c.from, c.to))
		require.ErrorContains(t, err, c.err, c.to.String())
	}
	// A bits tag of the snapshot's comment type in place of its bools:
	// accepted.
	type bitComment struct {
		User int64
		Bits [1]uint8 `croql:"bits=HasIssue,HasUnresolvedIssue"`
	}
	_, err := residentCatalogOf(withType(comment, reflect.TypeFor[bitComment]()))
	require.NoError(t, err)
}

// withType is residentTypes with the snapshot's type of from to, and, for
// a comment, a string type whose comments are tos.
func withType(from, to reflect.Type) map[reflect.Type]reflect.Type {
	types := residentTypes()
	types[from] = to
	if from != reflect.TypeFor[schema.Comment]() {
		return types
	}
	st := reflect.TypeFor[resString]()
	fields := make([]reflect.StructField, st.NumField())
	for i := range fields {
		fields[i] = st.Field(i)
		if fields[i].Name == "Comments" {
			fields[i].Type = reflect.PointerTo(to)
		}
	}
	types[reflect.TypeFor[schema.SourceString]()] = reflect.StructOf(fields)
	return types
}

// TestSummaryBits: summaryBits sets bit i for the i-th bool resSummary's
// bits tag names, and that tag names every bool of the schema's
// languages summary.
func TestSummaryBits(t *testing.T) {
	sf, _ := reflect.TypeFor[resSummary]().FieldByName("Bits")
	names := strings.Split(strings.TrimPrefix(sf.Tag.Get("croql"), "bits="), ",")
	st := reflect.TypeFor[schema.LanguageSummary]()
	bools := 0
	for i := range st.NumField() {
		if st.Field(i).Type.Kind() == reflect.Bool {
			bools++
		}
	}
	require.Len(t, names, bools)
	for i, n := range names {
		var m schema.LanguageSummary
		reflect.ValueOf(&m).Elem().FieldByName(n).SetBool(true)
		var want [5]uint8
		want[i/8] = 1 << (i % 8)
		require.Equal(t, want, summaryBits(&m), n)
	}
}
