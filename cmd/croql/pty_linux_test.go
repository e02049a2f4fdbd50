package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal: the controlling side (what a terminal
// emulator holds) and the terminal side (what a shell gives croql as its
// stdin or stderr).
func openPTY(t *testing.T) (control, term *os.File) {
	t.Helper()
	control, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { control.Close() })
	fd := int(control.Fd())
	require.NoError(t, unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0))
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	require.NoError(t, err)
	term, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	require.NoError(t, err)
	t.Cleanup(func() { term.Close() })
	return control, term
}

// TestQueryOnTerminalDoesNotWaitSilently: with no query argument and a
// terminal on stdin, croql says how to give the query instead of waiting;
// with "-" it says how to end the typed query and reads it.
func TestQueryOnTerminalDoesNotWaitSilently(t *testing.T) {
	control, term := openPTY(t)
	require.True(t, isTerminal(term))

	var out, errOut bytes.Buffer
	done := make(chan int, 1)
	go func() { done <- run([]string{"lint"}, term, &out, &errOut) }()
	select {
	case code := <-done:
		assert.Equal(t, 2, code)
		assert.Contains(t, errOut.String(), "no query: give it as an argument")
	case <-time.After(10 * time.Second):
		control.Write([]byte{4}) // end the input so the goroutine ends
		t.Fatal("croql lint waited for a query on the terminal")
	}

	out.Reset()
	errOut.Reset()
	go func() { done <- run([]string{"fmt", "-"}, term, &out, &errOut) }()
	_, err := control.Write([]byte("is hidden  AND  is duplicate\n\x04")) // the user types the query and Ctrl-D
	require.NoError(t, err)
	select {
	case code := <-done:
		assert.Equal(t, 0, code, errOut.String())
		assert.Equal(t, "is hidden and is duplicate\n", out.String())
		assert.Contains(t, errOut.String(), "end it with Ctrl-D")
	case <-time.After(10 * time.Second):
		t.Fatal("croql fmt - did not read the typed query")
	}
}

// TestDemoProgressOnTerminal: croql demo shows its progress on stderr when
// it is a terminal, and clears the line at the end; the output is the same.
func TestDemoProgressOnTerminal(t *testing.T) {
	control, term := openPTY(t)
	// Read what croql writes to the terminal as it comes, so a full
	// terminal buffer never blocks it.
	var seen bytes.Buffer
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		io.Copy(&seen, control)
	}()

	var out bytes.Buffer
	code := run([]string{"demo", "--strings", "3000", "--format", "ndjson"}, nil, &out, term)
	require.Equal(t, 0, code)
	term.Close()
	<-readDone // the copy ends when the terminal side is closed (EIO)

	shown := seen.String()
	assert.Contains(t, shown, "croql demo: generating: 0 of 3000 strings")
	assert.True(t, strings.HasSuffix(shown, "\r\x1b[K"), "the status line is cleared at the end: %q", shown)

	var plain bytes.Buffer
	require.Equal(t, 0, run([]string{"demo", "--strings", "3000", "--format", "ndjson"}, nil, &plain, io.Discard))
	assert.Equal(t, plain.String(), out.String(), "progress does not change the output")

	// The JSON form shows its writing stage.
	seen.Reset()
	control2, term2 := openPTY(t)
	readDone = make(chan struct{})
	go func() {
		defer close(readDone)
		io.Copy(&seen, control2)
	}()
	out.Reset()
	require.Equal(t, 0, run([]string{"demo", "--strings", "100"}, nil, &out, term2))
	term2.Close()
	<-readDone
	assert.Contains(t, seen.String(), "croql demo: writing JSON")
}
