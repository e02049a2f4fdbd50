package typecheck_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/parser"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/typecheck"
)

// TestCoreRules pins each rule of the rule table (core.go) on the forms it
// rewrites, and that the checked tree is left as it was.
func TestCoreRules(t *testing.T) {
	cat := schema.New()
	for _, tc := range []struct{ ctx, src, want string }{
		// ruleCount: some and none, the constant on either side.
		{"strings", `count of comments > 0`, `(exists comments@0)`},
		{"strings", `count of comments >= 1`, `(exists comments@0)`},
		{"strings", `count of comments != 0`, `(exists comments@0)`},
		{"strings", `0 < count of comments`, `(exists comments@0)`},
		{"strings", `count of comments = 0`, `(not (exists comments@0))`},
		{"strings", `count of comments <= 0`, `(not (exists comments@0))`},
		{"strings", `1 > count of comments`, `(not (exists comments@0))`},
		{"strings", `count of translations where (is pre translated) > 0`, `(exists (where@1 translations@0 is pre translated@1))`},
		// other counts stay counts
		{"strings", `count of comments = 1`, `(= int (count comments@0) 1)`},
		{"strings", `count of comments >= 0`, `(>= int (count comments@0) 0)`},
		// ruleEvery
		{"strings", `count of comments = count of comments where (has issue)`, `(not (exists (where@1 comments@0 (not has issue@1))))`},
		{"strings", `count of comments where (has issue) != count of comments`, `(exists (where@1 comments@0 (not has issue@1)))`},
		// ruleDerived
		{"strings", `type is plain`, `(= string type is plain@0 "plain")`},
		{"strings", `is visible`, `(not is visible@0)`},
		{"strings", `count of translations where (count of votes where (is up) > 0) > 0`, `(exists (where@1 translations@0 (exists (where@2 votes@1 (= string is up@2 "up")))))`},
		// ruleUserID
		{"strings", `count of comments where (id of user = 3) > 0`, `(exists (where@1 comments@0 (= int user@1 3)))`},
		{"translations", `id of user > 3`, `(> int user@0 3)`},
		// not a rule: the key of a record stays a member
		{"strings", `id of file = 7`, `(= int (member id file@0) 7)`},
	} {
		tree, pd := parser.Parse(tc.src)
		require.Empty(t, pd, tc.src)
		q := typecheck.Check(config(t, cat, tc.ctx, "standard"), tc.src, tree)
		require.Empty(t, q.Diags, tc.src)
		before := show(q.Root)
		core, scopes := typecheck.CoreOf(q)
		assert.Equal(t, tc.want, show(core), tc.src)
		assert.GreaterOrEqual(t, scopes, q.Scopes, tc.src)
		assert.Equal(t, before, show(q.Root), "Lower leaves the checked tree alone: %s", tc.src)
	}
}

// TestCoreDerivedBase: the base of a derived boolean is its Go field read
// as a string (Equals) or a bool (Negate), never absent.
func TestCoreDerivedBase(t *testing.T) {
	cat := schema.New()
	for src, want := range map[string]schema.Kind{`type is icu`: schema.String, `is visible`: schema.Bool} {
		tree, _ := parser.Parse(src)
		q := typecheck.Check(config(t, cat, "strings", "standard"), src, tree)
		require.Empty(t, q.Diags)
		var base *typecheck.Field
		typecheck.Inspect(q.Core, func(n typecheck.Node) {
			if f, ok := n.(*typecheck.Field); ok {
				base = f
			}
		})
		require.NotNil(t, base, src)
		assert.Equal(t, want, base.F.Type.Kind, src)
		assert.False(t, base.F.Nullable || base.F.Equals != "" || base.F.Negate, src)
		assert.False(t, typecheck.Nullable(base), src)
	}
}

// TestNullable is the nullability of core nodes, the one definition every
// back end reads.
func TestNullable(t *testing.T) {
	cat := schema.New()
	for src, want := range map[string]bool{
		`max length`:                          true,
		`max length + 1`:                      true,
		`identifier`:                          false,
		`count of comments`:                   false,
		`1 / 1`:                               true, // division may be by zero
		`id of file`:                          true, // the file may be absent
		`user`:                                false,
		`if is hidden then 1 else max length`: true,
	} {
		full := `(` + src + `) = (` + src + `)`
		tree, pd := parser.Parse(full)
		require.Empty(t, pd, full)
		ctx := "strings"
		if src == "user" {
			ctx = "translations"
		}
		q := typecheck.Check(config(t, cat, ctx, "standard"), full, tree)
		require.Empty(t, q.Diags, full)
		cmp, ok := q.Core.(*typecheck.Compare)
		require.True(t, ok, full)
		assert.Equal(t, want, typecheck.Nullable(cmp.X), src)
	}
	unresolved := &typecheck.Const{T: schema.Type{Kind: schema.User}, S: "ghost", Unresolved: true}
	assert.True(t, typecheck.Nullable(unresolved), "an unresolved mention may find no user")
}

// TestWithOperands: WithOperands(n, Operands(n)) is a copy of every node
// with operands (a new node, equal to n), over trees that hold every kind
// of node; a wrong count of operands leaves n as it is.
func TestWithOperands(t *testing.T) {
	cat := schema.New()
	kinds := map[string]bool{}
	for _, tc := range []struct{ ctx, src string }{
		{"strings", `count of translations where (count of votes where (is up) > 0) > 0 and not (max length between 1 and -(2 + 3))`},
		{"strings", `(if is hidden then text else identifier) contains "a" xor name of file = "x" or languages summary with (translation updated)`},
		{"strings", `max length / 2 > 1.5 and file with (name = "a")`},
	} {
		tree, pd := parser.Parse(tc.src)
		require.Empty(t, pd, tc.src)
		q := typecheck.Check(config(t, cat, tc.ctx, "standard"), tc.src, tree)
		require.False(t, q.Diags.HasErrors(), "%s: %v", tc.src, q.Diags)
		core, _ := typecheck.CoreOf(q)
		for _, root := range []typecheck.Node{q.Root, core} {
			typecheck.Inspect(root, func(n typecheck.Node) {
				ops := typecheck.Operands(n)
				c := typecheck.WithOperands(n, ops)
				if len(ops) == 0 {
					assert.Same(t, n, c)
					return
				}
				kinds[fmt.Sprintf("%T", n)] = true
				assert.NotSame(t, n, c, "%T", n)
				assert.Equal(t, n, c, "%T", n)
				assert.Equal(t, ops, typecheck.Operands(c), "%T", n)
				assert.Same(t, n, typecheck.WithOperands(n, ops[1:]), "%T with an operand too few", n)
			})
		}
	}
	for _, k := range []string{"*typecheck.Member", "*typecheck.Count", "*typecheck.Filter", "*typecheck.Not", "*typecheck.Logic",
		"*typecheck.Arith", "*typecheck.Neg", "*typecheck.Compare", "*typecheck.Between", "*typecheck.Contains", "*typecheck.If",
		"*typecheck.ToFloat", "*typecheck.IsSet", "*typecheck.Exists"} {
		assert.True(t, kinds[k], "no %s in the trees", k)
	}
}
