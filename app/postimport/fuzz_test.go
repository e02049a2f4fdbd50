package postimport

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzStringRoundTrip: any input that decodes as a string object encodes
// back to exactly its compacted bytes, and never panics.
func FuzzStringRoundTrip(f *testing.F) {
	for _, w := range wireStrings {
		f.Add([]byte(w))
	}
	f.Add([]byte(`{"text":{"one":"a"},"translations":{"de":{"text":"x","status":{"one":"approved"}}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var s String
		if err := json.Unmarshal(data, &s); err != nil {
			return
		}
		out, err := s.MarshalJSON()
		if err != nil {
			t.Fatalf("decoded but cannot encode: %v", err)
		}
		var want bytes.Buffer
		if err := json.Compact(&want, data); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out, want.Bytes()) {
			t.Fatalf("round trip changed the bytes:\n in: %s\nout: %s", want.Bytes(), out)
		}
		// An edited copy still encodes to valid JSON that decodes again.
		c := s.Clone()
		c.Identifier += "!"
		edited, err := c.MarshalJSON()
		if err != nil || !json.Valid(edited) {
			t.Fatalf("edited copy: %v %s", err, edited)
		}
		var back String
		if err := json.Unmarshal(edited, &back); err != nil || back.Identifier != c.Identifier {
			t.Fatalf("edited copy does not decode: %v %s", err, edited)
		}
	})
}

// FuzzDecodeNDJSON never panics and never returns more strings than lines.
func FuzzDecodeNDJSON(f *testing.F) {
	f.Add([]byte(wireStrings[0] + "\n\n" + wireStrings[2] + "\r\n"))
	f.Add([]byte("{\n}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		strs, err := DecodeNDJSON(bytes.NewReader(data), 1<<12, 1<<14)
		if err == nil && len(strs) > bytes.Count(data, []byte("\n"))+1 {
			t.Fatalf("%d strings from %d lines", len(strs), bytes.Count(data, []byte("\n"))+1)
		}
	})
}
