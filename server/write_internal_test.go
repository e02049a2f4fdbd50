package server

import (
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// counted is a page object that counts how often it is encoded.
type counted struct {
	text  string
	calls *int
}

func (c counted) MarshalJSON() ([]byte, error) {
	*c.calls++
	return json.Marshal(map[string]any{"text": c.text})
}

// TestListEncodedOnce: a list answer is encoded once, an object at a
// time, as json.Marshal writes it; a page over the byte budget stops at
// the first object past it (the objects after it are never encoded) and
// says how many fit, counting the escaped bytes as sent.
func TestListEncodedOnce(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	alphabet := []string{"a", "<", "\"", "\n", "é", "\u2028", "&"}
	for range 200 {
		calls := 0
		lr := listResponse{Data: []any{}, Pagination: Pagination{Offset: rng.Int64N(100), Limit: 25}}
		for range rng.IntN(8) {
			var sb strings.Builder
			for range rng.IntN(30) {
				sb.WriteString(alphabet[rng.IntN(len(alphabet))])
			}
			lr.Data = append(lr.Data, counted{text: sb.String(), calls: &calls})
		}
		want, err := json.Marshal(lr)
		require.NoError(t, err)
		calls = 0
		page := slices.Clone(lr.Data)
		doc, _, err := encodeList(lr, 0)
		require.NoError(t, err)
		require.Equal(t, string(want), string(joinDoc(doc)))
		require.Equal(t, len(lr.Data), calls, "each object encoded once")

		// A budget of the document less one byte: the last object does
		// not fit, and is the last one encoded.
		if len(lr.Data) == 0 {
			continue
		}
		calls = 0
		copy(lr.Data, page)
		doc, fit, err := encodeList(lr, int64(len(want)))
		require.NoError(t, err)
		require.Nil(t, doc)
		require.Equal(t, len(lr.Data)-1, fit)
		require.Equal(t, len(lr.Data), calls)
		copy(lr.Data, page)
		doc, _, err = encodeList(lr, int64(len(want))+1)
		require.NoError(t, err)
		require.NotNil(t, doc, "the document and its newline fit exactly")
	}

	// Objects after the first one past the budget are never encoded.
	calls := 0
	big := strings.Repeat("<", 1000) // 6,000 bytes as sent
	lr := listResponse{Data: []any{counted{"a", &calls}, counted{big, &calls}, counted{"b", &calls}, counted{"c", &calls}}}
	doc, fit, err := encodeList(lr, 5000)
	require.NoError(t, err)
	require.Nil(t, doc)
	require.Equal(t, 1, fit)
	require.Equal(t, 2, calls)

	// Written, the parts are the document and its newline.
	rec := httptest.NewRecorder()
	s := &Server{cfg: Config{MaxPageBytes: 1 << 20}}
	s.writeBody(rec, listResponse{Data: []any{map[string]any{"id": 1}}})
	require.Equal(t, http.StatusOK, rec.Code)
	want := `{"data":[{"id":1}],"pagination":{"offset":0,"limit":0}}` + "\n"
	require.Equal(t, want, rec.Body.String())
	require.Equal(t, strconv.Itoa(len(want)), rec.Header().Get("Content-Length"))
}

func joinDoc(d document) []byte {
	var b []byte
	for _, p := range d {
		b = append(b, p...)
	}
	return b
}
