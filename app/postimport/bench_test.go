package postimport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func BenchmarkDecodeString(b *testing.B) {
	raw := []byte(wireStrings[1])
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		var s String
		if err := json.Unmarshal(raw, &s); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMarshalString(b *testing.B) {
	var s String
	if err := json.Unmarshal([]byte(wireStrings[1]), &s); err != nil {
		b.Fatal(err)
	}
	b.Run("untouched", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := s.MarshalJSON(); err != nil {
				b.Fatal(err)
			}
		}
	})
	edited := s.Clone()
	edited.Identifier = "changed"
	b.Run("edited", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := edited.MarshalJSON(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkHandlerRoundTrip posts a job of 1000 strings to an identity
// processor: decode, validate, encode.
func BenchmarkHandlerRoundTrip(b *testing.B) {
	lines := make([]string, 1000)
	for i := range lines {
		lines[i] = fmt.Sprintf(`{"uniqId":"h::%d","identifier":"key.%d","context":"c","labels":["a"],"text":"Some text number %d","translations":{"de":{"text":"Text %d","status":"approved"}},"extra":{"n":%d}}`, i, i, i, i, i)
	}
	body := []byte(`{"jobType":"file-post-import","sourceLanguage":{"id":"en","pluralCategoryNames":["one","other"]},"targetLanguages":[{"id":"de","pluralCategoryNames":["one","other"]}],"strings":[` + strings.Join(lines, ",") + `]}`)
	h, err := NewHandler(identity, Config{Logger: quietLogger()})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body)))
		if w.Code != http.StatusOK {
			b.Fatal(w.Code, w.Body.String())
		}
	}
}
