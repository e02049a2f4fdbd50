package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func frame(t *testing.T, msg map[string]any) string {
	t.Helper()
	b, err := json.Marshal(msg)
	require.NoError(t, err)
	return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(b), b)
}

// pipeOut hides the pipe's Close from the command, so the test closes it.
type pipeOut struct {
	w *io.PipeWriter
}

func (p pipeOut) Write(b []byte) (int, error) { return p.w.Write(b) }

// `croql lsp` speaks LSP on stdin/stdout: initialize, a diagnostic for an
// opened document, shutdown and exit, with exit status 0.
func TestLSPCommandStdio(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	codes := make(chan int, 1)
	var errb bytes.Buffer
	go func() { codes <- run([]string{"lsp", "--stdio"}, inR, pipeOut{outW}, &errb); _ = outW.Close() }()
	var got bytes.Buffer
	read := make(chan struct{})
	go func() { _, _ = io.Copy(&got, outR); close(read) }()

	send := func(m map[string]any) {
		_, err := io.WriteString(inW, frame(t, m))
		require.NoError(t, err)
	}
	send(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{"capabilities": map[string]any{}}})
	send(map[string]any{"jsonrpc": "2.0", "method": "initialized", "params": map[string]any{}})
	send(map[string]any{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": map[string]any{
		"textDocument": map[string]any{"uri": "file:///q.croql", "languageId": "croql", "version": 1, "text": "is hiden"}}})
	send(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
	send(map[string]any{"jsonrpc": "2.0", "method": "exit"})
	select {
	case code := <-codes:
		assert.Equal(t, 0, code, errb.String())
	case <-time.After(20 * time.Second):
		t.Fatal("croql lsp did not exit")
	}
	<-read
	out := got.String()
	assert.Contains(t, out, `"id":1`)
	assert.Contains(t, out, `"semanticTokensProvider"`)
	assert.Contains(t, out, `"textDocument/publishDiagnostics"`)
	assert.Contains(t, out, "is not a field of a source string")
	assert.Equal(t, 3, strings.Count(out, "Content-Length:"), out)
}
