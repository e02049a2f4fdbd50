package diag_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/diag"
)

func TestPosition(t *testing.T) {
	src := "ab\nc😀d\r\nxyz"
	s := diag.NewSource(src)
	for _, tc := range []struct {
		off              int
		line, col, utf16 int
	}{
		{0, 1, 1, 0},
		{2, 1, 3, 2},
		{3, 2, 1, 0},
		{4, 2, 2, 1},
		{8, 2, 3, 3}, // after the 4-byte emoji: one rune, two UTF-16 units
		{11, 3, 1, 0},
		{14, 3, 4, 3},
		{99, 3, 4, 3}, // clamped
		{-5, 1, 1, 0}, // clamped
	} {
		p := s.Position(tc.off)
		assert.Equal(t, [3]int{tc.line, tc.col, tc.utf16}, [3]int{p.Line, p.Column, p.UTF16}, "offset %d", tc.off)
	}
	assert.Equal(t, "c😀d", s.Line(2), "a CR before the newline is not part of the line")
	assert.Equal(t, "", s.Line(0))
	assert.Equal(t, "", s.Line(4))
}

func TestFormatCaretUnderSpan(t *testing.T) {
	src := `text == "a"`
	d := diag.Errorf(diag.ClassSyntax, "double-equals", diag.Span{Start: 5, End: 7}, "CroQL has no `==`: write `=`").
		WithHint("= compares").WithFix(diag.Span{Start: 5, End: 7}, "=")
	got := diag.NewSource(src).Format(d)
	assert.Equal(t, "1:6: error: CroQL has no `==`: write `=` [croqlInvalidSyntax/double-equals]\n"+
		"  text == \"a\"\n"+
		"       ^^\n"+
		"  hint: = compares\n"+
		"  did you mean: =\n", got)
}

// TestFormatGCCForm: a named source prefixes its name, and every
// severity is spelled out, as compilers print them.
func TestFormatGCCForm(t *testing.T) {
	src := "is hidden and\ntext = 'Welcome!'"
	s := diag.NewNamedSource("<stdin>", src)
	assert.Equal(t, "<stdin>", s.Name())
	e := diag.Errorf(diag.ClassLogic, "unknown-field", diag.Span{Start: 0, End: 9}, "nope")
	w := diag.Warnf("single-quoted-string", diag.Span{Start: 21, End: 31}, "quotes")
	assert.True(t, strings.HasPrefix(s.Format(e), "<stdin>:1:1: error: nope [croqlInvalidLogic/unknown-field]\n"), s.Format(e))
	assert.True(t, strings.HasPrefix(s.Format(w), "<stdin>:2:8: warning: quotes [croqlWarning/single-quoted-string]\n"), s.Format(w))
	assert.Equal(t, "", diag.NewSource(src).Name())
}

// TestFormatCaretsByDisplayWidth: the carets stand under the span as a
// terminal shows it: tabs expanded to stops of 8, wide (CJK) characters
// and emoji two columns, combining marks none.
func TestFormatCaretsByDisplayWidth(t *testing.T) {
	for _, tc := range []struct {
		name, src, span string
		line, caret     string
	}{
		{"tab", "is hidden\tand x", "x", "is hidden       and x", "                    ^"},
		{"tab-in-span", "a\tb = 1", "a\tb", "a       b = 1", "^^^^^^^^^"},
		{"cjk", `text = "日本語" and nope`, "nope", `text = "日本語" and nope`, "                    ^^^^"},
		{"cjk-span", `text = "日本語"`, `"日本語"`, `text = "日本語"`, "       ^^^^^^^^"},
		{"emoji", `text = "😀👍" and nope`, "nope", `text = "😀👍" and nope`, "                  ^^^^"},
		{"zwj-family", `text = "👨‍👩‍👧" and nope`, "nope", `text = "👨‍👩‍👧" and nope`, "                ^^^^"},
		{"combining", "text = \"e\u0301\" and nope", "nope", "text = \"e\u0301\" and nope", "               ^^^^"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := strings.Index(tc.src, tc.span)
			require.GreaterOrEqual(t, start, 0)
			d := diag.Errorf(diag.ClassLogic, "r", diag.Span{Start: start, End: start + len(tc.span)}, "m")
			lines := strings.Split(diag.NewSource(tc.src).Format(d), "\n")
			require.GreaterOrEqual(t, len(lines), 3)
			assert.Equal(t, "  "+tc.line, lines[1])
			assert.Equal(t, "  "+tc.caret, lines[2])
		})
	}
}

func TestFormatLongLineIsWindowed(t *testing.T) {
	src := strings.Repeat("a and ", 10000) + "bad"
	d := diag.Errorf(diag.ClassLogic, "unknown-field", diag.Span{Start: len(src) - 3, End: len(src)}, "nope")
	got := diag.NewSource(src).Format(d)
	lines := strings.Split(got, "\n")
	require.GreaterOrEqual(t, len(lines), 3)
	assert.Less(t, len(lines[1]), 200, "the source line is cut to a window")
	assert.True(t, strings.HasPrefix(lines[1], "  …"))
	caret := strings.Index(lines[2], "^")
	assert.Equal(t, "bad", string([]rune(lines[1])[caret:caret+3]), "the caret stands under the span")
	assert.Equal(t, "^^^", strings.TrimSpace(lines[2]))
}

func TestListSortAndErrors(t *testing.T) {
	l := diag.List{
		diag.Warnf("w", diag.Span{Start: 9, End: 10}, "late warning"),
		diag.Errorf(diag.ClassLogic, "b", diag.Span{Start: 3, End: 4}, "second"),
		diag.Errorf(diag.ClassSyntax, "a", diag.Span{Start: 0, End: 1}, "first"),
	}
	l.Sort()
	assert.Equal(t, []string{"first", "second", "late warning"}, []string{l[0].Message, l[1].Message, l[2].Message})
	assert.True(t, l.HasErrors())
	assert.Len(t, l.Errors(), 2)
	err := l.Err()
	require.Error(t, err)
	var le diag.ListError
	assert.True(t, errors.As(err, &le))
	assert.Contains(t, err.Error(), "first")
	assert.NoError(t, diag.List{l[2]}.Err(), "warnings alone are not an error")
}

func ExampleSource_Format() {
	src := "is hiden and is duplicate"
	d := diag.Errorf(diag.ClassLogic, "unknown-field", diag.Span{Start: 0, End: 8},
		"`is hiden` is not a field of a source string").WithFix(diag.Span{Start: 0, End: 8}, "is hidden")
	fmt.Print(diag.NewSource(src).Format(d))
	// Output:
	// 1:1: error: `is hiden` is not a field of a source string [croqlInvalidLogic/unknown-field]
	//   is hiden and is duplicate
	//   ^^^^^^^^
	//   did you mean: is hidden
}

func TestSpanError(t *testing.T) {
	sentinel := errors.New("sentinel")
	err := fmt.Errorf("outer: %w", diag.At(diag.Span{Start: 3, End: 7}, fmt.Errorf("inner: %w", sentinel)))
	assert.Equal(t, "outer: inner: sentinel", err.Error())
	assert.ErrorIs(t, err, sentinel)
	sp, ok := diag.SpanOf(err)
	assert.True(t, ok)
	assert.Equal(t, diag.Span{Start: 3, End: 7}, sp)

	_, ok = diag.SpanOf(sentinel)
	assert.False(t, ok)
	assert.NoError(t, diag.At(diag.Span{}, nil))
}
