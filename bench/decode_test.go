package bench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/bytedance/sonic"
	goccy "github.com/goccy/go-json"
	jsoniter "github.com/json-iterator/go"
	segjson "github.com/segmentio/encoding/json"

	"github.com/croql/croql/demo"
	"github.com/croql/croql/schema"
)

// decoders are the JSON decoders compared on the data format's string
// lines (docs/performance.md). Each decodes one line into a
// schema.SourceString, honouring schema.Time's UnmarshalJSON.
var decoders = []struct {
	name   string
	decode func([]byte, *schema.SourceString) error
}{
	{"encoding_json", func(b []byte, s *schema.SourceString) error { return json.Unmarshal(b, s) }},
	{"goccy_go_json", func(b []byte, s *schema.SourceString) error { return goccy.Unmarshal(b, s) }},
	{"sonic", func(b []byte, s *schema.SourceString) error { return sonic.Unmarshal(b, s) }},
	{"segmentio", func(b []byte, s *schema.SourceString) error { return segjson.Unmarshal(b, s) }},
	{"jsoniter", func(b []byte, s *schema.SourceString) error {
		return jsoniter.ConfigCompatibleWithStandardLibrary.Unmarshal(b, s)
	}},
}

// stringLines returns the string lines of the file CROQL_DECODE_FILE (an
// NDJSON project, at most 20,000 of its string lines), or of a generated
// 5,000-string project.
func stringLines(tb testing.TB) [][]byte {
	var src []byte
	if name := os.Getenv("CROQL_DECODE_FILE"); name != "" {
		f, err := os.Open(name)
		if err != nil {
			tb.Fatal(err)
		}
		defer f.Close()
		var buf bytes.Buffer
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, schema.MaxLine)
		for n := 0; n < 20000 && sc.Scan(); {
			if bytes.HasPrefix(sc.Bytes(), []byte(`{"kind":"string"`)) {
				buf.Write(sc.Bytes())
				buf.WriteByte('\n')
				n++
			}
		}
		src = buf.Bytes()
	} else {
		var buf bytes.Buffer
		w := schema.NewNDJSONWriter(&buf)
		if err := demo.Stream(demo.Options{Strings: 5000, Seed: 1}, w); err != nil {
			tb.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			tb.Fatal(err)
		}
		src = buf.Bytes()
	}
	var lines [][]byte
	for line := range bytes.Lines(src) {
		if bytes.HasPrefix(line, []byte(`{"kind":"string"`)) {
			lines = append(lines, line)
		}
	}
	return lines
}

// TestDecodersAgree holds every decoder to encoding/json's result.
func TestDecodersAgree(t *testing.T) {
	lines := stringLines(t)[:500]
	for _, line := range lines {
		var want schema.SourceString
		if err := json.Unmarshal(line, &want); err != nil {
			t.Fatal(err)
		}
		wantJSON, _ := json.Marshal(&want)
		for _, d := range decoders[1:] {
			var got schema.SourceString
			if err := d.decode(line, &got); err != nil {
				t.Fatalf("%s: %v", d.name, err)
			}
			if gotJSON, _ := json.Marshal(&got); !bytes.Equal(gotJSON, wantJSON) {
				t.Fatalf("%s disagrees with encoding/json on %s", d.name, line)
			}
		}
	}
}

// BenchmarkDecodeString decodes string lines with each decoder; MB/s is
// the comparison (see docs/performance.md for the table and command).
func BenchmarkDecodeString(b *testing.B) {
	lines := stringLines(b)
	size := 0
	for _, l := range lines {
		size += len(l)
	}
	for _, d := range decoders {
		b.Run(d.name, func(b *testing.B) {
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				for _, l := range lines {
					var s schema.SourceString
					if err := d.decode(l, &s); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
