package schema_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/croql/croql/schema"
)

// FuzzReadProject: the reader never panics or hangs, every error says it
// comes from reading the project, and a project it reads in the JSON form
// reads the same after a round trip through the NDJSON form.
func FuzzReadProject(f *testing.F) {
	f.Add(`{"name":"p","users":[{"id":1,"login":"a"}],"files":[{"id":3,"name":"a.json","type":"json","context":""}],"strings":[{"id":1,"type":"plain","added":"2024-01-01","file":{"id":3},"translations":[{"id":5,"language":"de","text":"x"}]}]}`)
	f.Add("{\"strings\":[\n{\"id\":1,\"type\":\"plain\",\"added\":\"2024-01-01\"},\n{\"id\":2}]}")
	f.Add(`{"kind":"project","name":"p"}` + "\n" + `{"kind":"string","id":1,"type":"plain","added":"2024-01-01"}`)
	f.Add(`{"strings":[],"users":[]}`)
	f.Add(`{"tmSegments":null,"glossaryTerms":[{"id":1,"createdAt":"2024-01-01"}]}`)
	f.Fuzz(func(t *testing.T, src string) {
		p, err := schema.ReadProject(strings.NewReader(src))
		if err != nil {
			require.True(t, strings.HasPrefix(err.Error(), "reading project: "), err.Error())
			return
		}
		if !strings.HasPrefix(strings.TrimSpace(src), "{") || isNDJSON(src) {
			return
		}
		var buf bytes.Buffer
		require.NoError(t, p.WriteNDJSON(&buf))
		q, err := schema.ReadProject(&buf)
		require.NoError(t, err, buf.String())
		require.Len(t, q.Strings, len(p.Strings))
		require.Len(t, q.GlossaryTerms, len(p.GlossaryTerms))
		require.Len(t, q.TMSegments, len(p.TMSegments))
		require.Len(t, q.GlossaryConcepts, len(p.GlossaryConcepts))
		for i := range p.Strings {
			require.Equal(t, p.Strings[i].ID, q.Strings[i].ID)
		}
	})
}

func isNDJSON(src string) bool {
	first, _, _ := strings.Cut(src, "\n")
	return strings.Contains(first, `"kind"`)
}
