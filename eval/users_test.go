package eval_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/eval"
	"github.com/croql/croql/schema"
)

// TestWithUserLogins: the directory is id to login; eval.WithUsers, its
// old name, means the same for one release.
func TestWithUserLogins(t *testing.T) {
	q := check(t, schema.New(), schema.CtxTranslations, `user with (login = "alice")`, checkOpts{})
	dir := map[int64]string{11: "alice"}
	for name, opt := range map[string]eval.Option{"WithUserLogins": eval.WithUserLogins(dir), "WithUsers": eval.WithUsers(dir)} {
		p, err := eval.Compile(q, opt)
		require.NoError(t, err, name)
		assert.True(t, p.Match(&schema.Translation{User: 11}), name)
		assert.False(t, p.Match(&schema.Translation{User: 12}), name)
	}
}
