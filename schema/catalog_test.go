package schema_test

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/schema"
)

var (
	tInt64   = reflect.TypeFor[int64]()
	tFloat64 = reflect.TypeFor[float64]()
	tStr     = reflect.TypeFor[string]()
	tBoolean = reflect.TypeFor[bool]()
	tTime    = reflect.TypeFor[schema.Time]()
)

// wantGoType is the Go type a field of kind k must have (before the
// pointer that nullability adds).
func wantGoType(t *testing.T, f *schema.Field) reflect.Type {
	t.Helper()
	if f.Equals != "" {
		return tStr
	}
	switch f.Type.Kind {
	case schema.Bool:
		return tBoolean
	case schema.Int, schema.User:
		return tInt64
	case schema.Float:
		return tFloat64
	case schema.String, schema.Language:
		return tStr
	case schema.Datetime:
		return tTime
	case schema.Record:
		require.NotNil(t, f.Type.Obj, "record field %q has no object", f.Name)
		return f.Type.Obj.GoType
	case schema.Collection:
		require.NotNil(t, f.Type.Obj, "collection field %q has no element", f.Name)
		return reflect.SliceOf(f.Type.Obj.GoType)
	}
	t.Fatalf("field %q has kind %v", f.Name, f.Type.Kind)
	return nil
}

func TestFieldsBindToGoTypes(t *testing.T) {
	cat := schema.New()
	for _, o := range cat.Objects {
		require.NotNil(t, o.GoType, "object %s", o.Name)
		require.Equal(t, reflect.Struct, o.GoType.Kind(), "object %s", o.Name)
		for _, f := range o.Fields {
			t.Run(o.Name+"/"+f.Name, func(t *testing.T) {
				sf, ok := o.GoType.FieldByName(f.GoName)
				require.True(t, ok, "%s has no Go field %s", o.GoType, f.GoName)
				want := wantGoType(t, f)
				if f.Nullable && f.Type.Kind != schema.Collection {
					want = reflect.PointerTo(want)
				}
				assert.Equal(t, want, sf.Type, "Go field %s.%s", o.GoType.Name(), f.GoName)
				assert.NotEmpty(t, f.Doc)
				assert.False(t, f.Negate && f.Equals != "", "Negate and Equals together")
				if f.Negate {
					assert.Equal(t, schema.Bool, f.Type.Kind)
					assert.Equal(t, tBoolean, sf.Type)
				}
				if f.BoolAlso {
					assert.True(t, f.Nullable)
					assert.Equal(t, schema.Datetime, f.Type.Kind)
				}
				if f.Type.Kind == schema.User {
					assert.Same(t, cat.UserObj, f.Type.Obj)
				}
				if len(f.Enum) > 0 {
					assert.Equal(t, schema.String, f.Type.Kind)
				}
			})
		}
	}
}

func TestKeysUniqueAndResolvable(t *testing.T) {
	for _, o := range schema.New().Objects {
		seen := map[string]string{}
		for _, f := range o.Fields {
			assert.Equal(t, schema.NormalKey(f.Name), f.Key)
			if prev, dup := seen[f.Key]; dup {
				t.Errorf("%s: %q and %q have the same key %q", o.Name, prev, f.Name, f.Key)
			}
			seen[f.Key] = f.Name
			got, ok := o.Field(f.Name)
			if assert.True(t, ok, "%s.%s", o.Name, f.Name) {
				assert.Same(t, f, got)
			}
		}
	}
}

func TestNormalKey(t *testing.T) {
	for _, pair := range [][2]string{
		{"is hidden", "isHidden"},
		{"usage count", "usageCount"},
		{"IS HIDDEN", "isHidden"},
		{"is passed workflow", "isPassedWorkflow"},
		{"approvals count", "approvalsCount"},
	} {
		assert.Equal(t, schema.NormalKey(pair[0]), schema.NormalKey(pair[1]), "%q vs %q", pair[0], pair[1])
	}
	assert.NotEqual(t, schema.NormalKey("is hidden"), schema.NormalKey("is visible"))

	cat := schema.New()
	tm, _ := cat.Context("tm")
	rec := tm.Root.Fields[0].Type.Obj
	f, ok := rec.Field("usage count")
	require.True(t, ok)
	assert.Equal(t, "usageCount", f.Name)
	str, _ := cat.Context("strings")
	f, ok = str.Root.Field("isHidden")
	require.True(t, ok)
	assert.Equal(t, "is hidden", f.Name)
	_, ok = str.Root.Field("is hidde")
	assert.False(t, ok)
}

// reachable walks every object reachable from o through record,
// collection and user fields.
func reachable(o *schema.Object, seen map[*schema.Object]bool) {
	if o == nil || seen[o] {
		return
	}
	seen[o] = true
	for _, f := range o.Fields {
		reachable(f.Type.Obj, seen)
	}
}

func TestObjectsListsEveryReachableObjectOnce(t *testing.T) {
	cat := schema.New()
	listed := map[*schema.Object]int{}
	for _, o := range cat.Objects {
		listed[o]++
	}
	for o, n := range listed {
		assert.Equal(t, 1, n, "%s listed %d times", o.Name, n)
	}
	seen := map[*schema.Object]bool{}
	for _, c := range cat.Contexts {
		reachable(c.Root, seen)
	}
	for o := range seen {
		assert.Contains(t, listed, o, "%s is reachable but not in Objects", o.Name)
	}
	for o := range listed {
		assert.True(t, seen[o], "%s is listed but not reachable from any context", o.Name)
	}
	assert.Contains(t, listed, cat.UserObj)

	names := map[string]bool{}
	for _, o := range cat.Objects {
		assert.False(t, names[o.Name], "two objects named %q", o.Name)
		names[o.Name] = true
	}
	for _, want := range []string{"source string", "translation", "languages summary element", "vote", "approval",
		"comment", "label", "file", "branch", "custom field", "screenshot", "TM segment", "TM record",
		"glossary term", "glossary concept", "user"} {
		assert.True(t, names[want], "no object named %q", want)
	}
}

func TestContexts(t *testing.T) {
	cat := schema.New()
	want := map[string]string{
		"strings": "source string", "translations": "translation (translations context)",
		"tm": "TM segment", "glossary": "glossary term", "concepts": "glossary concept",
	}
	require.Len(t, cat.Contexts, len(want))
	for name, root := range want {
		c, ok := cat.Context(name)
		require.True(t, ok, name)
		assert.Equal(t, root, c.Root.Name)
		assert.NotEmpty(t, c.Title)
		idField, ok := c.Root.GoType.FieldByName("ID")
		if assert.True(t, ok, "%s has no ID", c.Root.GoType) {
			assert.Equal(t, tInt64, idField.Type)
		}
	}
	c, ok := cat.Context("SEGMENTS")
	require.True(t, ok)
	assert.Equal(t, "tm", c.Name)
	_, ok = cat.Context("nope")
	assert.False(t, ok)

	// The translations context has no `language`; the element of a
	// string's translations has it.
	tr, _ := cat.Context("translations")
	_, ok = tr.Root.Field("language")
	assert.False(t, ok)
	str, _ := cat.Context("strings")
	elem, _ := str.Root.Field("translations")
	_, ok = elem.Type.Obj.Field("language")
	assert.True(t, ok)
	assert.Equal(t, len(elem.Type.Obj.Fields)-1, len(tr.Root.Fields))
}

func TestNewIsFresh(t *testing.T) {
	a, b := schema.New(), schema.New()
	assert.NotSame(t, a.Contexts[0].Root, b.Contexts[0].Root)
	a.Contexts[0].Root.Fields[0].Doc = "changed"
	assert.NotEqual(t, "changed", b.Contexts[0].Root.Fields[0].Doc)
}

// fieldsOf returns the names of o's fields.
func fieldsOf(o *schema.Object) []string {
	var names []string
	for _, f := range o.Fields {
		names = append(names, f.Name)
	}
	return names
}

func objectNamed(t *testing.T, cat *schema.Catalog, name string) *schema.Object {
	t.Helper()
	for _, o := range cat.Objects {
		if o.Name == name {
			return o
		}
	}
	t.Fatalf("no object %q", name)
	return nil
}

// TestDocumentedFields checks the field lists of seed section 2.6 and of
// the reference's section 1, with their kinds.
func TestDocumentedFields(t *testing.T) {
	cat := schema.New()
	B, I, S, D, L, U, R, C := schema.Bool, schema.Int, schema.String, schema.Datetime, schema.Language, schema.User, schema.Record, schema.Collection
	summary := map[string]schema.Kind{"language": L, "rating": I, "approvalsCount": I, "translation updated": D}
	for _, n := range []string{"is translated", "is partially translated", "is approved", "is partially approved",
		"is auto translated", "is translated by tm", "is translated by mt", "is source changed after translation",
		"has translation as source", "has translation after approval", "has shared translation", "has qa issues",
		"has empty translation qa issues", "has translation length qa issues", "has tags mismatch qa issues",
		"has spaces mismatch qa issues", "has variables mismatch qa issues", "has punctuation mismatch qa issues",
		"has character case mismatch qa issues", "has special characters mismatch qa issues",
		"has incorrect translation qa issues", "has spelling qa issues", "has icu syntax qa issues",
		"has terms qa issues", "has duplicate translation qa issues", "has ftl syntax qa issues",
		"has android syntax qa issues", "has custom qa issues",
		// reference additions
		"is translated by ai", "has numbers mismatch qa issues", "has ai qa issues",
		"has outdated translation qa issues", "has mdx syntax qa issues"} {
		summary[n] = B
	}
	translation := map[string]schema.Kind{"text": S, "plural form": S, "is pre translated": B, "provider": S,
		"language": L, "user": U, "votes": C, "approvals": C, "updated": D}
	translationRoot := maps(translation)
	delete(translationRoot, "language")

	tests := map[string]map[string]schema.Kind{
		"source string": {"type is plain": B, "type is plural": B, "type is icu": B, "type is asset": B,
			"text": S, "identifier": S, "context": S, "max length": I, "is visible": B, "is hidden": B,
			"is duplicate": B, "isPassedWorkflow": B, "file": R, "branch": R, "comments": C, "screenshots": C,
			"translations": C, "languages summary": C, "labels": C, "fields": C, "added": D, "updated": D},
		"translation":                        translation,
		"translation (translations context)": translationRoot,
		"languages summary element":          summary,
		"vote":                               {"is up": B, "is down": B, "user": U, "added": D},
		"approval":                           {"user": U, "added": D},
		"comment":                            {"has issue": B, "has unresolved issue": B, "user": U},
		"label":                              {"id": I, "title": S, "is system": B},
		"file":                               {"id": I, "name": S, "title": S, "type": S, "context": S},
		"branch":                             {"id": I, "name": S, "title": S},
		"custom field":                       {"name": S, "slug": S, "value": S, "type": S},
		"screenshot":                         {"id": I, "name": S},
		"TM segment":                         {"records": C},
		"TM record": {"id": I, "text": S, "usageCount": I, "createdBy": U, "updatedBy": U,
			"createdAt": D, "updatedAt": D},
		"glossary term": {"id": I, "user": U, "concept": I, "text": S, "description": S, "note": S, "lemma": S,
			"url": S, "language": L, "partOfSpeech": S, "status": S, "type": S, "gender": S,
			"createdAt": D, "updatedAt": D},
		"glossary concept": {"id": I, "user": U, "subject": S, "definition": S, "url": S, "note": S,
			"translatable": B, "createdAt": D, "updatedAt": D},
		"user": {"id": I, "login": S},
	}
	for objName, fields := range tests {
		t.Run(objName, func(t *testing.T) {
			o := objectNamed(t, cat, objName)
			var want []string
			for name, kind := range fields {
				want = append(want, name)
				f, ok := o.Field(name)
				if assert.True(t, ok, "missing %q", name) {
					assert.Equal(t, name, f.Name, "documented spelling")
					assert.Equal(t, kind, f.Type.Kind, "%q", name)
				}
			}
			assert.ElementsMatch(t, want, fieldsOf(o), "exactly the documented fields")
		})
	}
}

func maps(m map[string]schema.Kind) map[string]schema.Kind {
	c := make(map[string]schema.Kind, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

func TestEditionsEnumsAndDerived(t *testing.T) {
	cat := schema.New()
	var enterprise []string
	for _, o := range cat.Objects {
		for _, f := range o.Fields {
			if f.Edition == schema.Enterprise {
				enterprise = append(enterprise, o.Name+"."+f.Name)
			}
		}
	}
	assert.ElementsMatch(t, []string{"source string.isPassedWorkflow", "source string.fields"}, enterprise)

	str, _ := cat.Context("strings")
	f, _ := str.Root.Field("type is icu")
	assert.Equal(t, "Type", f.GoName)
	assert.Equal(t, "icu", f.Equals)
	f, _ = str.Root.Field("is visible")
	assert.Equal(t, "IsHidden", f.GoName)
	assert.True(t, f.Negate)
	f, _ = str.Root.Field("max length")
	assert.True(t, f.Nullable)

	vote := objectNamed(t, cat, "vote")
	f, _ = vote.Field("is down")
	assert.Equal(t, "Mark", f.GoName)
	assert.Equal(t, "down", f.Equals)

	tr := objectNamed(t, cat, "translation")
	f, _ = tr.Field("provider")
	assert.Equal(t, []string{"tm", "global_tm", "google", "google_automl", "microsoft", "crowdin", "deepl",
		"modernmt", "amazon", "watson", "custom_mt", "ai"}, f.Enum)
	assert.True(t, f.Nullable)

	sum := objectNamed(t, cat, "languages summary element")
	f, _ = sum.Field("translation updated")
	assert.True(t, f.BoolAlso)
	assert.True(t, f.Nullable)

	term := objectNamed(t, cat, "glossary term")
	for name, want := range map[string]string{"partOfSpeech": "propn", "status": "not_recommended", "type": "short_form", "gender": "neuter"} {
		f, _ = term.Field(name)
		assert.True(t, slices.Contains(f.Enum, want), "%s enum lacks %s", name, want)
	}
}

func Example() {
	cat := schema.New()
	ctx, _ := cat.Context("strings")
	f, _ := ctx.Root.Field("isHidden")
	fmt.Println(ctx.Title, "/", f.Name, "/", f.Type, "/", f.GoName)

	sum, _ := ctx.Root.Field("languages summary")
	fmt.Println(sum.Type)

	tm, _ := cat.Context("segments")
	rec := tm.Root.Fields[0].Type.Obj
	u, _ := rec.Field("created by")
	fmt.Println(tm.Name, "/", u.Name, "/", u.Type, "/", u.Type.Obj.Name)
	// Output:
	// source strings / is hidden / bool / IsHidden
	// collection of languages summary element
	// tm / createdBy / user / user
}
