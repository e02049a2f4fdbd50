package locfile

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestJSONPos: the line and column of an offset, asked for in any order,
// are those counted from the start of the file.
func TestJSONPos(t *testing.T) {
	data := "{\n\"a\": \"x\",\n\n  \"b\": {\"one\": \"1\"}\n}\n"
	d, err := readJSONDoc(strings.NewReader(data), Limits{})
	require.NoError(t, err)
	for _, off := range []int64{0, 5, 12, 3, 13, 14, int64(len(data)), 1, 40, -1, 20} {
		c := min(max(off, 0), int64(len(data)))
		before := []byte(data[:c])
		line, col := d.pos(off)
		assert.Equal(t, bytes.Count(before, []byte("\n"))+1, line, off)
		assert.Equal(t, int(c)-bytes.LastIndexByte(before, '\n'), col, off)
	}
}

// BenchmarkJSONOneLine reads a key-value JSON file of 100,000 keys on one
// line (as tools that minify write it): its time grows with the file,
// not with the file times its keys.
func BenchmarkJSONOneLine(b *testing.B) {
	var buf bytes.Buffer
	buf.WriteString("{")
	for i := range 100_000 {
		if i > 0 {
			buf.WriteString(",")
		}
		fmt.Fprintf(&buf, `"k%07d":"t%07d"`, i, i)
	}
	buf.WriteString("}")
	b.SetBytes(int64(buf.Len()))
	for b.Loop() {
		n := 0
		err := JSON{}.Parse(bytes.NewReader(buf.Bytes()), Limits{}, &File{}, func(*Unit) error { n++; return nil })
		if err != nil || n != 100_000 {
			b.Fatal(n, err)
		}
	}
}
