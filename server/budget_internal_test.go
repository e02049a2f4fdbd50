package server

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPageBytesCountAsSent: the page budget counts a text as the answer
// sends it: 200 `<`s are 1,200 bytes of JSON (\u003c), over a budget
// of 1,000, so reading stops there (before, 200 raw bytes were counted
// and a page of such texts was read up to six times its budget).
func TestPageBytesCountAsSent(t *testing.T) {
	b := pageBytes{max: 1000}
	var pe *pageBudgetError
	require.ErrorAs(t, b.add([]any{strings.Repeat("<", 200)}), &pe)
	assert.Zero(t, pe.fit)
	b = pageBytes{max: 1000}
	assert.NoError(t, b.add([]any{strings.Repeat("a", 1000)}))
}

// TestJSONLen: jsonLen is the length encoding/json writes, on random
// texts of the characters it escapes and of multi-byte and invalid
// UTF-8.
func TestJSONLen(t *testing.T) {
	alphabet := []string{"a", "é", "€", "😀", "\"", "\\", "\n", "\r", "\t", "\b", "\f", "\x00", "\x1f", "\x7f",
		"<", ">", "&", "\u2028", "\u2029", "\xff", "\xe2\x82", "\ufffd"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		var sb strings.Builder
		for range rng.IntN(40) {
			sb.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		s := sb.String()
		j, err := json.Marshal(s)
		require.NoError(t, err)
		require.Equal(t, int64(len(j)-2), jsonLen(s), "%q", s)
	}
}
