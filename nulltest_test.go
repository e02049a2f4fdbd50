package croql_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql"
	"github.com/croql/croql/demo"
	"github.com/croql/croql/diag"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/typecheck"
)

// applyFix returns src with fix applied.
func applyFix(src string, f diag.Fix) string {
	return src[:f.Span.Start] + f.Text + src[f.Span.End:]
}

// nullTestFixes checks src (which has null tests) and returns its
// null-test diagnostics.
func nullTestDiags(t *testing.T, env *croql.Env, src string) diag.List {
	t.Helper()
	var out diag.List
	_, diags := env.Check(src)
	for _, d := range diags {
		if d.Rule == typecheck.RuleNullTest {
			out = append(out, d)
		}
	}
	require.NotEmpty(t, out, "%s: a null-test diagnostic", src)
	return out
}

// TestNullTestFixesTypeCheck: for every field of every context, at the top
// level and inside `where`, every fix the null-test diagnostic suggests
// re-checks without an error; and every nullable scalar, object and user
// field, and every collection, gets one.
func TestNullTestFixesTypeCheck(t *testing.T) {
	cat := schema.New()
	fixed := 0
	for _, ctx := range cat.Contexts {
		env, err := croql.NewEnv(ctx.Name, croql.WithEdition(croql.Enterprise))
		require.NoError(t, err)
		for _, f := range ctx.Root.Fields {
			var queries []string
			for _, test := range []string{"is null", "is not null", "IS NULL", "is empty", "is not empty"} {
				queries = append(queries, f.Name+" "+test, "not ("+f.Name+" "+test+")")
			}
			if f.Type.Kind == schema.Collection && f.Type.Obj != nil {
				for _, g := range f.Type.Obj.Fields {
					queries = append(queries, "count of "+f.Name+" where ("+g.Name+" is null) > 0")
				}
			}
			for _, src := range queries {
				for _, d := range nullTestDiags(t, env, src) {
					for _, fix := range d.Fixes {
						got := applyFix(src, fix)
						_, diags := env.Check(got)
						assert.False(t, diags.HasErrors(), "%s: fix %q gives %q: %v", ctx.Name, src, got, diags)
						assert.Contains(t, d.Message, fix.Text, "the message says what the fix writes")
						fixed++
					}
					wantFix := strings.HasSuffix(strings.ToLower(src), "null") && !strings.HasPrefix(src, "count of ") &&
						(f.Nullable || f.Type.Kind == schema.Collection) && f.Equals == "" && !f.BoolAlso
					if wantFix {
						assert.Len(t, d.Fixes, 1, "%s: %s: %s", ctx.Name, src, d.Message)
					}
				}
			}
		}
	}
	assert.Greater(t, fixed, 50, "fixes were offered and re-checked")
}

// TestNullTestFixesMeanNull: over the demo project, the fix of `F is null`
// matches exactly the objects whose Go field is nil, and the fix of
// `F is not null` the others, for every nullable field of every context.
func TestNullTestFixesMeanNull(t *testing.T) {
	p := demo.Default()
	cat := schema.New()
	tested := 0
	for _, ctx := range cat.Contexts {
		env, err := croql.NewEnv(ctx.Name, croql.WithEdition(croql.Enterprise))
		require.NoError(t, err)
		objs := p.Objects(ctx)
		for _, f := range ctx.Root.Fields {
			if !f.Nullable || f.GoName == "" || f.Equals != "" || f.Negate || f.BoolAlso {
				continue
			}
			for _, negated := range []bool{false, true} {
				src := f.Name + " is null"
				if negated {
					src = f.Name + " is not null"
				}
				ds := nullTestDiags(t, env, src)
				require.Len(t, ds[0].Fixes, 1, "%s: %s", ctx.Name, src)
				fixedSrc := applyFix(src, ds[0].Fixes[0])
				q, diags := env.Compile(fixedSrc)
				require.False(t, diags.HasErrors(), "%s: %v", fixedSrc, diags)
				absent, present := 0, 0
				for _, o := range objs {
					v := reflect.ValueOf(o).Elem().FieldByName(f.GoName)
					require.True(t, v.IsValid(), "%s.%s", ctx.Root.Name, f.GoName)
					isNil := v.Kind() == reflect.Pointer && v.IsNil()
					if isNil {
						absent++
					} else {
						present++
					}
					assert.Equal(t, isNil != negated, mustMatch(t, q, o), "%s: %s on %+v", ctx.Name, fixedSrc, o)
				}
				tested++
				t.Logf("%s: %s -> %s (%d absent, %d present)", ctx.Name, src, fixedSrc, absent, present)
			}
		}
	}
	assert.Greater(t, tested, 4)
}

// TestNullTestFixExamples: the fixes of the query and of a few
// others, exactly.
func TestNullTestFixExamples(t *testing.T) {
	env, err := croql.NewEnv(croql.Strings)
	require.NoError(t, err)
	for src, want := range map[string]string{
		"max length is null":                                 "not (max length >= 0 or max length < 0)",
		"is hidden and max length IS NOT NULL":               "is hidden and (max length >= 0 or max length < 0)",
		"count of translations where (provider is null) > 0": `count of translations where (not (provider >= "")) > 0`,
		"id of file is null":                                 "not (id of file >= 0 or id of file < 0)",
		"context is empty":                                   `context = ""`,
		"count of comments = 0 or translations is not empty": "count of comments = 0 or count of translations > 0",
	} {
		ds := nullTestDiags(t, env, src)
		require.Len(t, ds, 1, src)
		require.Len(t, ds[0].Fixes, 1, "%s: %s", src, ds[0].Message)
		assert.Equal(t, want, applyFix(src, ds[0].Fixes[0]), src)
		assert.NotContains(t, ds[0].Message, "for a bool", "the message is for the subject's type")
	}
	// Another error in the query: no fix can be checked, and the message
	// lists the form for each type.
	ds := nullTestDiags(t, env, "max length is null and x == 1")
	assert.Empty(t, ds[0].Fixes)
	assert.Contains(t, ds[0].Message, "`not (max length >= 0 or max length < 0)` for a number")
}
