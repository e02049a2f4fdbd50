package server

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// encodeBoth encodes lr with encodeList and with encoding/json and fails
// when they differ.
func encodeBoth(t *testing.T, lr listResponse) {
	t.Helper()
	want, err := json.Marshal(lr)
	require.NoError(t, err)
	doc, _, err := encodeList(lr, 0)
	require.NoError(t, err)
	require.Equal(t, string(want), string(bytes.Join(doc, nil)))
}

// objectOf is a page object with the values a list's objects hold (what
// value and the list's builders make): strings, int64s, bools, nulls,
// API datetimes, id lists, nested objects and lists of them.
func objectOf(s string, n int64, f float64) map[string]any {
	return map[string]any{
		"text": s, "identifier": s + "\u2028<&>" + s, "id": n, "ratio": f, "isHidden": n%2 == 0, "context": nil,
		"createdAt": time.Unix(n%(1<<33), 0).UTC().Format(TimeLayout), "labelIds": []int64{n, -n, 0},
		"plurals": []any{map[string]any{"form": s, "translationId": n}}, "": s, s: n,
		"fields": map[string]any{s: []string{s, ""}, "x": json.RawMessage(`{"b": 1, "a": [true]}`)},
	}
}

// FuzzObjectEncoding: encodeList writes a page's objects byte for byte
// as encoding/json writes them (goccy/go-json, which it uses, sorts map
// keys, escapes HTML, U+2028 and U+2029, writes invalid UTF-8 as U+FFFD
// and floats in the same form), for any text, id and number.
func FuzzObjectEncoding(f *testing.F) {
	for _, s := range []string{"", "plain", "<b>&amp;</b>", "\u2028\u2029", "\xff\xfe invalid", "\x00\x1f\"\\/", "日本語 😀", "\ufffd"} {
		f.Add(s, int64(42), 0.5)
	}
	f.Add("x", int64(math.MinInt64), 1e21)
	f.Add("y", int64(math.MaxInt64), 1e-7)
	f.Add("z", int64(-1), 123456789.125)
	f.Fuzz(func(t *testing.T, s string, n int64, fl float64) {
		if math.IsNaN(fl) || math.IsInf(fl, 0) {
			fl = 0 // encoding/json refuses them; no object holds one
		}
		encodeBoth(t, listResponse{Data: []any{objectOf(s, n, fl), objectOf(s+s, -n, -fl)}, Pagination: Pagination{Offset: n, Limit: 25}})
	})
}

// TestObjectEncodingRandom: encodeList and encoding/json agree on pages
// of objects of random bytes, ids and numbers (a fixed seed).
func TestObjectEncodingRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		b := make([]byte, r.IntN(24))
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		fl := r.NormFloat64() * math.Pow(10, float64(r.IntN(40)-20))
		total := r.Int64()
		encodeBoth(t, listResponse{Data: []any{objectOf(string(b), r.Int64()-r.Int64(), fl)},
			Pagination: Pagination{Offset: 0, Limit: 25, Total: &total}})
	}
}
