package lsp_test

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"go.uber.org/zap"

	"github.com/croql/croql/lsp"
)

// client records what the server sends.
type client struct {
	diags    chan *protocol.PublishDiagnosticsParams
	messages chan string
}

func (c *client) Progress(context.Context, *protocol.ProgressParams) error { return nil }
func (c *client) WorkDoneProgressCreate(context.Context, *protocol.WorkDoneProgressCreateParams) error {
	return nil
}
func (c *client) LogMessage(context.Context, *protocol.LogMessageParams) error { return nil }
func (c *client) PublishDiagnostics(_ context.Context, p *protocol.PublishDiagnosticsParams) error {
	c.diags <- p
	return nil
}
func (c *client) ShowMessage(_ context.Context, p *protocol.ShowMessageParams) error {
	c.messages <- p.Message
	return nil
}
func (c *client) ShowMessageRequest(context.Context, *protocol.ShowMessageRequestParams) (*protocol.MessageActionItem, error) {
	return nil, nil
}
func (c *client) Telemetry(context.Context, any) error                                   { return nil }
func (c *client) RegisterCapability(context.Context, *protocol.RegistrationParams) error { return nil }
func (c *client) UnregisterCapability(context.Context, *protocol.UnregistrationParams) error {
	return nil
}
func (c *client) ApplyEdit(context.Context, *protocol.ApplyWorkspaceEditParams) (bool, error) {
	return false, nil
}
func (c *client) Configuration(context.Context, *protocol.ConfigurationParams) ([]any, error) {
	return nil, nil
}
func (c *client) WorkspaceFolders(context.Context) ([]protocol.WorkspaceFolder, error) {
	return nil, nil
}

// session is a server running in-process, talked to over a pipe.
type session struct {
	t      *testing.T
	ctx    context.Context
	server protocol.Server
	conn   jsonrpc2.Conn
	client *client
	done   chan error
}

func start(t *testing.T) *session {
	t.Helper()
	base, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	a, b := net.Pipe()
	done := make(chan error, 1)
	go func() { done <- lsp.Serve(base, a) }()
	cl := &client{diags: make(chan *protocol.PublishDiagnosticsParams, 16), messages: make(chan string, 16)}
	ctx, conn, server := protocol.NewClient(base, cl, jsonrpc2.NewStream(b), zap.NewNop())
	t.Cleanup(func() { _ = conn.Close() })
	return &session{t: t, ctx: ctx, server: server, conn: conn, client: cl, done: done}
}

func (s *session) initialize(root string, opts any) *protocol.InitializeResult {
	s.t.Helper()
	params := &protocol.InitializeParams{InitializationOptions: opts}
	if root != "" {
		params.WorkspaceFolders = []protocol.WorkspaceFolder{{URI: string(uri.File(root)), Name: "root"}}
	}
	res, err := s.server.Initialize(s.ctx, params)
	require.NoError(s.t, err)
	require.NoError(s.t, s.server.Initialized(s.ctx, &protocol.InitializedParams{}))
	return res
}

func (s *session) diagnostics() *protocol.PublishDiagnosticsParams {
	s.t.Helper()
	select {
	case d := <-s.client.diags:
		return d
	case <-s.ctx.Done():
		s.t.Fatal("no diagnostics published")
		return nil
	}
}

func (s *session) open(u protocol.DocumentURI, text string) *protocol.PublishDiagnosticsParams {
	s.t.Helper()
	require.NoError(s.t, s.server.DidOpen(s.ctx, &protocol.DidOpenTextDocumentParams{
		TextDocument: protocol.TextDocumentItem{URI: u, LanguageID: "croql", Version: 1, Text: text}}))
	return s.diagnostics()
}

func (s *session) change(u protocol.DocumentURI, version int32, text string) *protocol.PublishDiagnosticsParams {
	s.t.Helper()
	require.NoError(s.t, s.server.DidChange(s.ctx, &protocol.DidChangeTextDocumentParams{
		TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: version},
		ContentChanges: []protocol.TextDocumentContentChangeEvent{{Text: text}}}))
	return s.diagnostics()
}

func (s *session) stop() {
	s.t.Helper()
	require.NoError(s.t, s.server.Shutdown(s.ctx))
	_ = s.server.Exit(s.ctx)
	select {
	case err := <-s.done:
		assert.NoError(s.t, err)
	case <-s.ctx.Done():
		s.t.Fatal("the server did not stop on exit")
	}
}

func pos(line, char uint32) protocol.Position { return protocol.Position{Line: line, Character: char} }

const doc = protocol.DocumentURI("file:///tmp/query.croql")

// TestScriptedSession is the issue's session: initialize; open `is hiden
// and …` (a diagnostic on columns 0–8 whose fix is a code action); change
// to `count of translations where (is ) > 0` (completion at the cursor
// offers `is pre translated` before every field of the string); hover on
// `max length` shows int; shutdown.
func TestScriptedSession(t *testing.T) {
	s := start(t)
	res := s.initialize("", map[string]any{"context": "strings"})
	assert.NotNil(t, res.Capabilities.CompletionProvider)
	assert.Equal(t, true, res.Capabilities.HoverProvider)

	pub := s.open(doc, "is hiden and max length > 10")
	require.Len(t, pub.Diagnostics, 1)
	d := pub.Diagnostics[0]
	assert.Equal(t, protocol.Range{Start: pos(0, 0), End: pos(0, 8)}, d.Range)
	assert.Equal(t, protocol.DiagnosticSeverityError, d.Severity)
	assert.Equal(t, "unknown-field", d.Code)
	actions, err := s.server.CodeAction(s.ctx, &protocol.CodeActionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: doc}, Range: d.Range,
		Context: protocol.CodeActionContext{Diagnostics: []protocol.Diagnostic{d}}})
	require.NoError(t, err)
	require.NotEmpty(t, actions)
	a := actions[0]
	assert.Equal(t, protocol.QuickFix, a.Kind)
	require.NotNil(t, a.Edit)
	edits := a.Edit.Changes[doc]
	require.Len(t, edits, 1)
	assert.Equal(t, protocol.TextEdit{Range: d.Range, NewText: "is hidden"}, edits[0])

	src := "count of translations where (is ) > 0"
	pub = s.change(doc, 2, src)
	assert.Equal(t, uint32(2), pub.Version)
	cursor := uint32(strings.Index(src, ")"))
	list, err := s.server.Completion(s.ctx, &protocol.CompletionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: doc}, Position: pos(0, cursor)}})
	require.NoError(t, err)
	index := map[string]int{}
	for i, it := range list.Items {
		index[it.Label] = i
	}
	pre, ok := index["is pre translated"]
	require.True(t, ok, "is pre translated offered")
	item := list.Items[pre]
	assert.Equal(t, protocol.CompletionItemKindField, item.Kind)
	assert.Equal(t, "bool", item.Detail)
	require.NotNil(t, item.TextEdit)
	assert.Equal(t, protocol.Range{Start: pos(0, 29), End: pos(0, cursor)}, item.TextEdit.Range)
	assert.Equal(t, "is pre translated", item.TextEdit.NewText)
	outer := 0
	for _, name := range []string{"is hidden", "is visible", "is duplicate"} {
		i, ok := index[name]
		require.True(t, ok, "%s offered", name)
		assert.Less(t, pre, i, "order")
		assert.Less(t, item.SortText, list.Items[i].SortText, "sortText")
		outer++
	}
	assert.Equal(t, 3, outer)

	s.change(doc, 3, "max length > 80")
	h, err := s.server.Hover(s.ctx, &protocol.HoverParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: doc}, Position: pos(0, 4)}})
	require.NoError(t, err)
	require.NotNil(t, h)
	assert.Contains(t, h.Contents.Value, "`int`")
	assert.Equal(t, protocol.Range{Start: pos(0, 0), End: pos(0, 10)}, *h.Range)

	s.stop()
}

// UTF-16 columns: a string of astral characters before the error.
func TestDiagnosticsUTF16(t *testing.T) {
	s := start(t)
	s.initialize("", nil)
	pub := s.open(doc, "text = \"😀é\" and\n  is hiden")
	require.Len(t, pub.Diagnostics, 1)
	assert.Equal(t, protocol.Range{Start: pos(1, 2), End: pos(1, 10)}, pub.Diagnostics[0].Range)
	pub = s.change(doc, 2, "text = \"😀é\" and is hiden")
	// text = "  (8) + 😀 (2) + é (1) + " and " (6) = 17
	assert.Equal(t, protocol.Range{Start: pos(0, 17), End: pos(0, 25)}, pub.Diagnostics[0].Range)
	// A completion position after the emoji maps back to the right byte.
	list, err := s.server.Completion(s.ctx, &protocol.CompletionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: doc}, Position: pos(0, 25)}})
	require.NoError(t, err)
	require.NotEmpty(t, list.Items)
	assert.Equal(t, "is hidden", list.Items[0].Label)
	assert.Equal(t, protocol.Range{Start: pos(0, 17), End: pos(0, 25)}, list.Items[0].TextEdit.Range)
	s.stop()
}

// The first-line directive switches the context; croql.json supplies the
// directory (here through a project file) for mention completion and
// hover.
func TestDirectiveAndConfigFile(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "croql.json"),
		[]byte(`{"context": "strings", "project": "project.json", "languages": ["pt-BR"]}`), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(root, "project.json"),
		[]byte(`{"name": "p", "sourceLanguageId": "en", "targetLanguageIds": ["de", "fr"], "users": [{"id": 11, "login": "alice"}, {"id": 12, "login": "bob"}]}`), 0o600))
	s := start(t)
	s.initialize(root, nil)

	text := "# croql: context=translations\nis pre translated and user = @user:\"alice\""
	pub := s.open(doc, text)
	assert.Empty(t, pub.Diagnostics, "checked in the translations context")
	h, err := s.server.Hover(s.ctx, &protocol.HoverParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: doc}, Position: pos(1, 35)}})
	require.NoError(t, err)
	require.NotNil(t, h)
	assert.Contains(t, h.Contents.Value, "user id 11")

	pub = s.change(doc, 2, "# croql: context=translations\nuser = @user:\"\" and language = @language:\"")
	list, err := s.server.Completion(s.ctx, &protocol.CompletionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: doc}, Position: pos(1, 14)}})
	require.NoError(t, err)
	var labels []string
	for _, it := range list.Items {
		labels = append(labels, it.Label)
	}
	assert.Equal(t, []string{"alice", "bob"}, labels)
	_ = pub
	list, err = s.server.Completion(s.ctx, &protocol.CompletionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: doc}, Position: pos(1, 42)}})
	require.NoError(t, err)
	labels = nil
	for _, it := range list.Items {
		labels = append(labels, it.Label)
	}
	assert.Equal(t, []string{"pt-BR", "en", "de", "fr"}, labels, "the settings' languages, then the project's source and targets")

	// Without the directive the same text is checked as strings.
	pub = s.change(doc, 3, "is pre translated")
	require.Len(t, pub.Diagnostics, 1)
	assert.Equal(t, "unknown-field", pub.Diagnostics[0].Code)

	// An unknown context in the directive is a diagnostic on it.
	pub = s.change(doc, 4, "# croql: context=nope\nis hidden")
	require.Len(t, pub.Diagnostics, 1)
	assert.Equal(t, "unknown-context", pub.Diagnostics[0].Code)
	assert.Equal(t, protocol.Range{Start: pos(0, 0), End: pos(0, 21)}, pub.Diagnostics[0].Range)
	s.stop()
}

func TestFormattingTokensAndFixAll(t *testing.T) {
	s := start(t)
	s.initialize("", map[string]any{"context": "strings"})
	s.open(doc, "IS HIDDEN  AND (count of labels>2)")
	edits, err := s.server.Formatting(s.ctx, &protocol.DocumentFormattingParams{TextDocument: protocol.TextDocumentIdentifier{URI: doc}})
	require.NoError(t, err)
	require.Len(t, edits, 1)
	assert.Equal(t, "is hidden and count of labels > 2", edits[0].NewText)
	assert.Equal(t, protocol.Range{Start: pos(0, 0), End: pos(0, 34)}, edits[0].Range)

	s.change(doc, 2, "# croql: context=strings\ncount of labels > 2")
	toks, err := s.server.SemanticTokensFull(s.ctx, &protocol.SemanticTokensParams{TextDocument: protocol.TextDocumentIdentifier{URI: doc}})
	require.NoError(t, err)
	// comment, count, of, labels, >, 2: (line delta, char delta, length, type, 0)
	assert.Equal(t, []uint32{
		0, 0, 24, 6, 0,
		1, 0, 5, 1, 0,
		0, 6, 2, 1, 0,
		0, 3, 6, 0, 0,
		0, 7, 1, 5, 0,
		0, 2, 1, 4, 0,
	}, toks.Data)

	pub := s.change(doc, 3, "is hiden and is duplicat")
	require.Len(t, pub.Diagnostics, 2)
	actions, err := s.server.CodeAction(s.ctx, &protocol.CodeActionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: doc}, Range: protocol.Range{Start: pos(0, 0), End: pos(0, 24)}})
	require.NoError(t, err)
	require.Len(t, actions, 3)
	all := actions[2]
	assert.Contains(t, all.Title, "all 2")
	got, _ := json.Marshal(all.Edit.Changes[doc])
	assert.JSONEq(t, `[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":8}},"newText":"is hidden"},
		{"range":{"start":{"line":0,"character":13},"end":{"line":0,"character":24}},"newText":"is duplicate"}]`, string(got))
	s.stop()
}

// New settings (VS Code sends them under the section name) re-check the
// open documents; a broken project file is shown as a message.
func TestDidChangeConfiguration(t *testing.T) {
	s := start(t)
	s.initialize("", nil)
	pub := s.open(doc, "is pre translated")
	require.Len(t, pub.Diagnostics, 1)
	require.NoError(t, s.server.DidChangeConfiguration(s.ctx, &protocol.DidChangeConfigurationParams{
		Settings: map[string]any{"croql": map[string]any{"context": "translations"}}}))
	pub = s.diagnostics()
	assert.Empty(t, pub.Diagnostics, "checked again in the translations context")
	require.NoError(t, s.server.DidChangeConfiguration(s.ctx, &protocol.DidChangeConfigurationParams{
		Settings: map[string]any{"project": filepath.Join(t.TempDir(), "missing.json")}}))
	select {
	case msg := <-s.client.messages:
		assert.Contains(t, msg, "missing.json")
	case <-s.ctx.Done():
		t.Fatal("no message about the project file")
	}
	pub = s.diagnostics()
	assert.Empty(t, pub.Diagnostics, "the context setting is kept")
	s.stop()
}

// Closing a document clears its diagnostics; requests for it then fail,
// and a method croql does not serve answers MethodNotFound.
func TestCloseAndUnknown(t *testing.T) {
	s := start(t)
	s.initialize("", nil)
	pub := s.open(doc, "is hiden")
	require.Len(t, pub.Diagnostics, 1)
	require.NoError(t, s.server.DidClose(s.ctx, &protocol.DidCloseTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: doc}}))
	pub = s.diagnostics()
	assert.Empty(t, pub.Diagnostics)
	_, err := s.server.Hover(s.ctx, &protocol.HoverParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: doc}, Position: pos(0, 1)}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not open")
	_, err = s.server.Definition(s.ctx, &protocol.DefinitionParams{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "method not found")
	s.stop()
}

// TestSugarCodeActions: each sugar form's diagnostic is offered, as a
// code action, the rewrite into platform CroQL, and the edit is that fix.
func TestSugarCodeActions(t *testing.T) {
	s := start(t)
	s.initialize("", map[string]any{"context": "strings"})
	pub := s.open(doc, "is hidden")
	require.Empty(t, pub.Diagnostics)
	date := regexp.MustCompile(`^'\d{4}-\d{2}-\d{2}'$`)
	for i, c := range []struct{ src, at, want string }{
		{`identifier in ("a", "b")`, `identifier in ("a", "b")`, `(identifier = "a" or identifier = "b")`},
		{`is hidden and file is absent`, `file is absent`, `not (id of file >= 0 or id of file < 0)`},
		{`max length is not null`, `max length is not null`, `(max length >= 0 or max length < 0)`},
		{`added > 'today - 7 days'`, `'today - 7 days'`, ""},
		{`"welcome"`, `"welcome"`, `(text contains "welcome" or identifier contains "welcome")`},
		{`fileId = 7`, `fileId`, `id of file`},
		{`createdAt > '2024-01-01'`, `createdAt`, `added`},
	} {
		pub := s.change(doc, int32(i+2), c.src)
		require.Len(t, pub.Diagnostics, 1, c.src)
		d := pub.Diagnostics[0]
		actions, err := s.server.CodeAction(s.ctx, &protocol.CodeActionParams{
			TextDocument: protocol.TextDocumentIdentifier{URI: doc}, Range: d.Range,
			Context: protocol.CodeActionContext{Diagnostics: []protocol.Diagnostic{d}}})
		require.NoError(t, err)
		require.Len(t, actions, 1, c.src)
		a := actions[0]
		assert.True(t, strings.HasPrefix(a.Title, "Rewrite as platform CroQL: "), a.Title)
		assert.True(t, a.IsPreferred)
		require.NotNil(t, a.Edit)
		edits := a.Edit.Changes[doc]
		require.Len(t, edits, 1)
		start := uint32(strings.Index(c.src, c.at))
		assert.Equal(t, protocol.Range{Start: pos(0, start), End: pos(0, start+uint32(len(c.at)))}, edits[0].Range, c.src)
		if c.want == "" {
			assert.Regexp(t, date, edits[0].NewText, c.src)
			assert.Contains(t, d.Message, "with the clock at ")
		} else {
			assert.Equal(t, c.want, edits[0].NewText, c.src)
		}
	}
	s.stop()
}
