package croql_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/croql/croql"
	"github.com/croql/croql/internal/corpus"
)

// BenchmarkCheck measures parse + type check (what an editor's lint and a
// service's query validation pay) for every seed pattern of the corpus.
//
//	go test -run '^$' -bench BenchmarkCheck -benchmem .
func BenchmarkCheck(b *testing.B) {
	cases, err := corpus.LoadFile("testdata/corpus/seed_patterns.txt")
	require.NoError(b, err)
	envs := map[string]*croql.Env{}
	for _, c := range cases {
		env := envs[c.Context()]
		if env == nil {
			env = mustEnv(b, c.Context(), croql.WithUserIDs(map[string]int64{"alice": 1}), croql.WithLanguages("de"))
			envs[c.Context()] = env
		}
		src := c.Query()
		_, diags := env.Check(src)
		require.Empty(b, diags, src)
		b.Run(c.Name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if q, _ := env.Check(src); q == nil || q.Root == nil {
					b.Fatal("no checked tree")
				}
			}
		})
	}
}
