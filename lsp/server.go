// Package lsp is croql's language server: CroQL in any editor that speaks
// the Language Server Protocol, over a stream (stdio for `croql lsp`).
//
// It publishes diagnostics when a document is opened or changed (positions
// in UTF-16 code units, as LSP counts), offers every did-you-mean fix as a
// quick-fix code action (and one action applying them all), and answers
// completion, hover, formatting and full-document semantic tokens from
// one tolerant parse per document version (editor.Document), and the command
// croql.why (CommandWhy: why the query matches one object of a project
// file or not, clause by clause). The protocol
// is go.lsp.dev/protocol over go.lsp.dev/jsonrpc2.
//
// Settings (the context, the edition, the user directory and language codes
// that mentions resolve against) come from a croql.json in the workspace
// root, overridden key by key by the client's initializationOptions; see
// [Settings]. A document's first line may hold an editor directive
// (`# croql: context=translations`, see editor.ParseDirective) that
// overrides the context and edition for that document.
package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"unicode/utf8"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/croql/croql"
	"github.com/croql/croql/diag"
	"github.com/croql/croql/editor"
	"github.com/croql/croql/schema"
)

// Settings configure the server. In croql.json (workspace root) and in
// initializationOptions alike:
//
//	{"context": "strings", "edition": "standard",
//	 "project": "data/project.json",
//	 "users": {"alice": 11}, "languages": ["de", "fr"]}
//
// project is a project data file (docs/data-format.md, relative to the
// workspace root) whose users and language codes (source and targets) are added to users and
// languages. Every key is optional; the context defaults to strings.
type Settings struct {
	Context   string           `json:"context,omitempty"`
	Edition   string           `json:"edition,omitempty"`
	Project   string           `json:"project,omitempty"`
	Users     map[string]int64 `json:"users,omitempty"`
	Languages []string         `json:"languages,omitempty"`
}

// merge returns s with every key o sets replaced.
func (s Settings) merge(o Settings) Settings {
	if o.Context != "" {
		s.Context = o.Context
	}
	if o.Edition != "" {
		s.Edition = o.Edition
	}
	if o.Project != "" {
		s.Project = o.Project
	}
	if o.Users != nil {
		s.Users = o.Users
	}
	if o.Languages != nil {
		s.Languages = o.Languages
	}
	return s
}

// ConfigFile is the name of the settings file read from the workspace root.
const ConfigFile = "croql.json"

// Serve runs the server on rwc until the client sends exit or the stream
// ends, and returns the connection's error (nil after a clean exit).
func Serve(ctx context.Context, rwc io.ReadWriteCloser) error {
	srv := NewServer()
	// protocol.NewServer's handler chain (jsonrpc2.AsyncHandler) lets the
	// next message start before a reply is written and lets exit close the
	// stream under a pending reply; croql's handlers are fast and never wait
	// on the client, so they run in order on the read loop instead.
	conn := jsonrpc2.NewConn(jsonrpc2.NewStream(rwc))
	client := protocol.ClientDispatcher(conn, zap.NewNop())
	srv.bind(conn, client)
	ctx = protocol.WithClient(ctx, client)
	conn.Go(ctx, protocol.CancelHandler(jsonrpc2.ReplyHandler(protocol.ServerHandler(srv, jsonrpc2.MethodNotFoundHandler))))
	select {
	case <-conn.Done():
	case <-ctx.Done():
		_ = conn.Close()
		<-conn.Done()
		return fmt.Errorf("croql lsp: %w", ctx.Err())
	}
	if err := conn.Err(); err != nil && !srv.exited() && !errors.Is(err, io.EOF) {
		return fmt.Errorf("croql lsp: %w", err)
	}
	return nil
}

// Server implements protocol.Server for CroQL documents.
type Server struct {
	unimplemented

	mu       sync.Mutex
	conn     jsonrpc2.Conn
	client   protocol.Client
	settings Settings
	root     string
	envs     map[string]*croql.Env // by context and edition
	docs     map[protocol.DocumentURI]*document
	exit     bool
	warnings []string // problems with the settings, shown once
}

// document is one open text and what was computed for its version.
type document struct {
	text    string
	version int32
	doc     *editor.Document
	src     *diag.Source
	env     *croql.Env
	diags   diag.List // what was published, for code actions
}

// NewServer returns a server with default settings; Serve binds it to a
// connection.
func NewServer() *Server {
	return &Server{envs: map[string]*croql.Env{}, docs: map[protocol.DocumentURI]*document{}}
}

func (s *Server) bind(conn jsonrpc2.Conn, client protocol.Client) {
	s.mu.Lock()
	s.conn, s.client = conn, client
	s.mu.Unlock()
}

func (s *Server) exited() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.exit
}

// The semantic token legend: the index of each type is what the encoded
// tokens carry.
var tokenTypes = []protocol.SemanticTokenTypes{
	protocol.SemanticTokenProperty, // field
	protocol.SemanticTokenKeyword,  // keyword
	protocol.SemanticTokenVariable, // mention
	protocol.SemanticTokenString,   // string and datetime literal
	protocol.SemanticTokenNumber,   // number literal
	protocol.SemanticTokenOperator, // operator
	protocol.SemanticTokenComment,  // the directive
}

// Initialize reads the settings and announces the capabilities.
func (s *Server) Initialize(_ context.Context, params *protocol.InitializeParams) (*protocol.InitializeResult, error) {
	root := workspaceRoot(params)
	var set Settings
	var warns []string
	if root != "" {
		if data, err := os.ReadFile(filepath.Join(root, ConfigFile)); err == nil {
			if err := json.Unmarshal(data, &set); err != nil {
				warns = append(warns, fmt.Sprintf("%s: %v", ConfigFile, err))
			}
		}
	}
	if params.InitializationOptions != nil {
		raw, err := json.Marshal(params.InitializationOptions)
		var opt Settings
		if err == nil {
			err = json.Unmarshal(raw, &opt)
		}
		if err != nil {
			warns = append(warns, fmt.Sprintf("initializationOptions: %v", err))
		}
		set = set.merge(opt)
	}
	set, warns = finish(set, root, warns)
	s.mu.Lock()
	s.settings, s.root, s.warnings = set, root, warns
	s.mu.Unlock()
	return &protocol.InitializeResult{
		Capabilities: protocol.ServerCapabilities{
			TextDocumentSync: protocol.TextDocumentSyncOptions{
				OpenClose: true,
				Change:    protocol.TextDocumentSyncKindFull,
			},
			CompletionProvider:         &protocol.CompletionOptions{TriggerCharacters: []string{"@", "\"", "("}},
			HoverProvider:              true,
			CodeActionProvider:         protocol.CodeActionOptions{CodeActionKinds: []protocol.CodeActionKind{protocol.QuickFix}},
			DocumentFormattingProvider: true,
			ExecuteCommandProvider:     &protocol.ExecuteCommandOptions{Commands: []string{CommandWhy}},
			SemanticTokensProvider: map[string]any{
				"legend": protocol.SemanticTokensLegend{TokenTypes: tokenTypes, TokenModifiers: []protocol.SemanticTokenModifiers{}},
				"full":   true,
			},
		},
		ServerInfo: &protocol.ServerInfo{Name: "croql"},
	}, nil
}

// workspaceRoot is the first workspace folder, else the older rootUri and
// rootPath that some clients still send alone.
func workspaceRoot(params *protocol.InitializeParams) string {
	if len(params.WorkspaceFolders) > 0 {
		return protocol.DocumentURI(params.WorkspaceFolders[0].URI).Filename()
	}
	//lint:ignore SA1019 clients that send no workspace folders send rootUri
	if params.RootURI != "" {
		return params.RootURI.Filename() //lint:ignore SA1019 see above
	}
	//lint:ignore SA1019 the oldest clients send only rootPath
	return params.RootPath
}

// finish reads the project file of set and fills the default context.
func finish(set Settings, root string, warns []string) (Settings, []string) {
	if set.Project != "" {
		path := set.Project
		if !filepath.IsAbs(path) && root != "" {
			path = filepath.Join(root, path)
		}
		if err := addProject(&set, path); err != nil {
			warns = append(warns, fmt.Sprintf("project %s: %v", set.Project, err))
		}
	}
	if set.Context == "" {
		set.Context = croql.Strings
	}
	return set, warns
}

// DidChangeConfiguration applies new settings, given as the settings
// object itself or under a "croql" key (as VS Code sends a section), key by
// key over the current ones, and checks every open document again.
func (s *Server) DidChangeConfiguration(ctx context.Context, params *protocol.DidChangeConfigurationParams) error {
	raw, err := json.Marshal(params.Settings)
	if err != nil {
		return fmt.Errorf("croql lsp: settings: %w", err)
	}
	var wrapped struct {
		Croql *Settings `json:"croql"`
	}
	var set Settings
	if err := json.Unmarshal(raw, &wrapped); err == nil && wrapped.Croql != nil {
		set = *wrapped.Croql
	} else if err := json.Unmarshal(raw, &set); err != nil {
		return s.warn(ctx, fmt.Sprintf("settings: %v", err))
	}
	s.mu.Lock()
	merged, warns := finish(s.settings.merge(set), s.root, nil)
	s.settings = merged
	s.envs = map[string]*croql.Env{}
	docs := make(map[protocol.DocumentURI]*document, len(s.docs))
	for u, d := range s.docs {
		docs[u] = d
	}
	s.mu.Unlock()
	for _, w := range warns {
		if err := s.warn(ctx, w); err != nil {
			return err
		}
	}
	for u, d := range docs {
		if err := s.update(ctx, u, d.version, d.text); err != nil {
			return err
		}
	}
	return nil
}

// warn shows a problem with the settings.
func (s *Server) warn(ctx context.Context, msg string) error {
	s.mu.Lock()
	client := s.client
	s.mu.Unlock()
	if client == nil {
		return nil
	}
	return client.ShowMessage(ctx, &protocol.ShowMessageParams{Type: protocol.MessageTypeWarning, Message: "croql: " + msg})
}

// addProject adds the users and the language codes of a project file (its
// source language, target languages and language list, as the CLI and the
// playground take them: schema.Project.LanguageCodes).
func addProject(set *Settings, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open: %w", err)
	}
	defer f.Close()
	p, err := schema.ReadProject(f)
	if err != nil {
		return fmt.Errorf("read: %w", err)
	}
	users := map[string]int64{}
	for login, id := range set.Users {
		users[login] = id
	}
	for login, id := range p.UserIDs() {
		users[login] = id
	}
	set.Users = users
	langs := append([]string{}, set.Languages...)
	for _, l := range p.LanguageCodes() {
		if !contains(langs, l) {
			langs = append(langs, l)
		}
	}
	set.Languages = langs
	return nil
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// Initialized shows the settings' problems, if any.
func (s *Server) Initialized(ctx context.Context, _ *protocol.InitializedParams) error {
	s.mu.Lock()
	warns, client := s.warnings, s.client
	s.warnings = nil
	s.mu.Unlock()
	for _, w := range warns {
		if client != nil {
			if err := client.ShowMessage(ctx, &protocol.ShowMessageParams{Type: protocol.MessageTypeWarning, Message: "croql: " + w}); err != nil {
				return fmt.Errorf("croql lsp: %w", err)
			}
		}
	}
	return nil
}

// Shutdown is accepted; the server stops on exit.
func (s *Server) Shutdown(context.Context) error { return nil }

// Exit closes the connection.
func (s *Server) Exit(context.Context) error {
	s.mu.Lock()
	s.exit = true
	conn := s.conn
	s.mu.Unlock()
	if conn != nil {
		return conn.Close()
	}
	return nil
}

// env returns the environment for a context and edition (the settings'
// when empty), or an error for an unknown context.
func (s *Server) env(context, edition string) (*croql.Env, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if context == "" {
		context = s.settings.Context
	}
	if edition == "" {
		edition = s.settings.Edition
	}
	key := strings.ToLower(context) + "/" + edition
	if e, ok := s.envs[key]; ok {
		return e, nil
	}
	opts := []croql.Option{}
	if strings.EqualFold(edition, "enterprise") {
		opts = append(opts, croql.WithEdition(croql.Enterprise))
	}
	if s.settings.Users != nil {
		opts = append(opts, croql.WithUserIDs(s.settings.Users))
	}
	if s.settings.Languages != nil {
		opts = append(opts, croql.WithLanguages(s.settings.Languages...))
	}
	e, err := croql.NewEnv(context, opts...)
	if err != nil {
		return nil, err
	}
	s.envs[key] = e
	return e, nil
}

// update analyses a new version of a document and publishes its
// diagnostics.
func (s *Server) update(ctx context.Context, uri protocol.DocumentURI, version int32, text string) error {
	d := &document{text: text, version: version, src: diag.NewSource(text)}
	dir, _ := editor.ParseDirective(text)
	env, err := s.env(dir.Context, dir.Edition)
	var diags diag.List
	if err != nil {
		// An unknown context in the directive: check in the default one and
		// say so on the directive.
		diags = append(diags, diag.Errorf(diag.ClassLogic, "unknown-context", dir.Span, "%v", err))
		env, err = s.env("", dir.Edition)
		if err != nil {
			return err
		}
	}
	d.env = env
	d.doc = editor.Open(env, text)
	diags = append(diags, dir.Diags...)
	diags = append(diags, d.doc.Diagnostics()...)
	if _, blanked := editor.ParseDirective(text); diags.HasErrors() {
		diags = pastSugar(env, blanked, diags)
	}
	diags.Sort()
	d.diags = diags
	s.mu.Lock()
	s.docs[uri] = d
	client := s.client
	s.mu.Unlock()
	if client == nil {
		return nil
	}
	out := make([]protocol.Diagnostic, 0, len(diags))
	for _, x := range diags {
		out = append(out, d.lspDiag(x))
	}
	return client.PublishDiagnostics(ctx, &protocol.PublishDiagnosticsParams{URI: uri, Version: uint32(max(version, 0)), Diagnostics: out})
}

func (d *document) lspDiag(x diag.Diagnostic) protocol.Diagnostic {
	sev := protocol.DiagnosticSeverityError
	switch x.Severity {
	case diag.Warning:
		sev = protocol.DiagnosticSeverityWarning
	case diag.Info:
		sev = protocol.DiagnosticSeverityInformation
	}
	msg := x.Message
	if x.Hint != "" {
		msg += "\nhint: " + x.Hint
	}
	return protocol.Diagnostic{Range: d.rng(x.Span), Severity: sev, Code: x.Rule, Source: "croql", Message: msg}
}

// pos converts a byte offset to an LSP position (UTF-16 columns).
func (d *document) pos(off int) protocol.Position {
	p := d.src.Position(off)
	return protocol.Position{Line: uint32(p.Line - 1), Character: uint32(p.UTF16)}
}

func (d *document) rng(sp diag.Span) protocol.Range {
	return protocol.Range{Start: d.pos(sp.Start), End: d.pos(sp.End)}
}

// offset converts an LSP position to a byte offset, clamped into the text.
func (d *document) offset(p protocol.Position) int {
	text := d.text
	i := 0
	for line := uint32(0); line < p.Line; line++ {
		nl := strings.IndexByte(text[i:], '\n')
		if nl < 0 {
			return len(text)
		}
		i += nl + 1
	}
	for units := uint32(0); units < p.Character && i < len(text) && text[i] != '\n'; {
		r, size := rune(text[i]), 1
		if r >= 0x80 {
			r, size = utf8.DecodeRuneInString(text[i:])
		}
		if r >= 0x10000 {
			units += 2
		} else {
			units++
		}
		i += size
	}
	return i
}

// DidOpen analyses the document.
func (s *Server) DidOpen(ctx context.Context, params *protocol.DidOpenTextDocumentParams) error {
	return s.update(ctx, params.TextDocument.URI, params.TextDocument.Version, params.TextDocument.Text)
}

// DidChange analyses the new text (full synchronisation: the last change
// is the whole text).
func (s *Server) DidChange(ctx context.Context, params *protocol.DidChangeTextDocumentParams) error {
	if len(params.ContentChanges) == 0 {
		return nil
	}
	text := params.ContentChanges[len(params.ContentChanges)-1].Text
	return s.update(ctx, params.TextDocument.URI, params.TextDocument.Version, text)
}

// DidClose forgets the document and clears its diagnostics.
func (s *Server) DidClose(ctx context.Context, params *protocol.DidCloseTextDocumentParams) error {
	s.mu.Lock()
	delete(s.docs, params.TextDocument.URI)
	client := s.client
	s.mu.Unlock()
	if client == nil {
		return nil
	}
	return client.PublishDiagnostics(ctx, &protocol.PublishDiagnosticsParams{URI: params.TextDocument.URI, Diagnostics: []protocol.Diagnostic{}})
}

func (s *Server) doc(uri protocol.DocumentURI) (*document, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.docs[uri]
	if !ok {
		// The reply carries a jsonrpc2 error's own message, so the message is
		// built in rather than wrapped.
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("croql lsp: %s is not open", uri))
	}
	return d, nil
}

// CodeAction offers each fix of the diagnostics in the range as a quick
// fix (a did-you-mean, or the rewrite of a sugar form into platform CroQL),
// and one action that applies every fix of the document.
func (s *Server) CodeAction(_ context.Context, params *protocol.CodeActionParams) ([]protocol.CodeAction, error) {
	d, err := s.doc(params.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	uri := params.TextDocument.URI
	lo, hi := d.offset(params.Range.Start), d.offset(params.Range.End)
	actions := []protocol.CodeAction{}
	var all []protocol.TextEdit
	var allDiags []protocol.Diagnostic
	taken := []diag.Span{}
	for _, x := range d.diags {
		if len(x.Fixes) == 0 {
			continue
		}
		ld := d.lspDiag(x)
		for i, f := range x.Fixes {
			edit := protocol.TextEdit{Range: d.rng(f.Span), NewText: f.Text}
			if x.Span.Start <= hi && lo <= x.Span.End {
				title := fmt.Sprintf("Replace with `%s`", f.Text)
				if f.Sugar {
					title = fmt.Sprintf("Rewrite as platform CroQL: `%s`", f.Text)
				}
				actions = append(actions, protocol.CodeAction{
					Title:       title,
					Kind:        protocol.QuickFix,
					Diagnostics: []protocol.Diagnostic{ld},
					IsPreferred: i == 0,
					Edit:        &protocol.WorkspaceEdit{Changes: map[protocol.DocumentURI][]protocol.TextEdit{uri: {edit}}},
				})
			}
			if i == 0 && !overlaps(taken, f.Span) {
				taken = append(taken, f.Span)
				all = append(all, edit)
				allDiags = append(allDiags, ld)
			}
		}
	}
	if len(all) > 1 {
		actions = append(actions, protocol.CodeAction{
			Title:       fmt.Sprintf("Apply all %d did-you-mean fixes", len(all)),
			Kind:        protocol.QuickFix,
			Diagnostics: allDiags,
			Edit:        &protocol.WorkspaceEdit{Changes: map[protocol.DocumentURI][]protocol.TextEdit{uri: all}},
		})
	}
	return actions, nil
}

func overlaps(spans []diag.Span, sp diag.Span) bool {
	for _, t := range spans {
		if sp.Start < t.End && t.Start < sp.End {
			return true
		}
	}
	return false
}

// completionKinds maps croql's completion kinds to LSP's.
var completionKinds = map[editor.CompletionKind]protocol.CompletionItemKind{
	editor.CompleteField:    protocol.CompletionItemKindField,
	editor.CompleteKeyword:  protocol.CompletionItemKindKeyword,
	editor.CompleteOperator: protocol.CompletionItemKindOperator,
	editor.CompleteMention:  protocol.CompletionItemKindReference,
	editor.CompleteValue:    protocol.CompletionItemKindValue,
}

// Completion answers with croql's items, in their order (sortText).
func (s *Server) Completion(_ context.Context, params *protocol.CompletionParams) (*protocol.CompletionList, error) {
	d, err := s.doc(params.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	items := d.doc.Complete(d.offset(params.Position))
	out := make([]protocol.CompletionItem, len(items))
	for i, it := range items {
		detail := it.Detail
		if it.Edition == "enterprise" {
			detail += " — enterprise edition"
		}
		out[i] = protocol.CompletionItem{
			Label:    it.Label,
			Kind:     completionKinds[it.Kind],
			Detail:   detail,
			SortText: it.SortText,
			TextEdit: &protocol.TextEdit{Range: d.rng(it.Range), NewText: it.InsertText},
		}
		if it.Doc != "" {
			out[i].Documentation = protocol.MarkupContent{Kind: protocol.PlainText, Value: it.Doc}
		}
	}
	return &protocol.CompletionList{Items: out}, nil
}

// Hover answers with croql's hover as Markdown.
func (s *Server) Hover(_ context.Context, params *protocol.HoverParams) (*protocol.Hover, error) {
	d, err := s.doc(params.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	h := d.doc.Hover(d.offset(params.Position))
	if h == nil {
		return nil, nil
	}
	r := d.rng(h.Range)
	return &protocol.Hover{Contents: protocol.MarkupContent{Kind: protocol.Markdown, Value: h.Markdown()}, Range: &r}, nil
}

// Formatting replaces the text by its canonical form (the directive line
// kept); a text with an error is left alone.
func (s *Server) Formatting(_ context.Context, params *protocol.DocumentFormattingParams) ([]protocol.TextEdit, error) {
	d, err := s.doc(params.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	dir, body := editor.ParseDirective(d.text)
	formatted, diags := d.env.Format(body)
	if diags.HasErrors() || formatted == "" {
		return []protocol.TextEdit{}, nil
	}
	if dir.Span.End > 0 {
		formatted = d.text[:dir.Span.End] + "\n" + formatted
	}
	if strings.HasSuffix(d.text, "\n") {
		formatted += "\n"
	}
	if formatted == d.text {
		return []protocol.TextEdit{}, nil
	}
	whole := diag.Span{Start: 0, End: len(d.text)}
	return []protocol.TextEdit{{Range: d.rng(whole), NewText: formatted}}, nil
}

// SemanticTokensFull encodes croql's tokens relative to each other, one
// token per line a token spans.
func (s *Server) SemanticTokensFull(_ context.Context, params *protocol.SemanticTokensParams) (*protocol.SemanticTokens, error) {
	d, err := s.doc(params.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	var data []uint32
	var line, char uint32
	for _, t := range d.doc.SemanticTokens() {
		typ := uint32(0)
		switch t.Kind {
		case editor.TokenField:
			typ = 0
		case editor.TokenKeyword:
			typ = 1
		case editor.TokenMention:
			typ = 2
		case editor.TokenLiteral:
			typ = 3
			if t.Literal == "int" || t.Literal == "float" {
				typ = 4
			}
		case editor.TokenOperator:
			typ = 5
		case editor.TokenComment:
			typ = 6
		}
		// Split a token that spans lines (a name written over two lines).
		start := t.Span.Start
		for start < t.Span.End {
			end := t.Span.End
			if nl := strings.IndexByte(d.text[start:end], '\n'); nl >= 0 {
				end = start + nl
			}
			if end > start {
				p, q := d.pos(start), d.pos(end)
				dl, dc := p.Line-line, p.Character
				if dl == 0 {
					dc = p.Character - char
				}
				data = append(data, dl, dc, q.Character-p.Character, typ, 0)
				line, char = p.Line, p.Character
			}
			start = end + 1
			for start < t.Span.End && (d.text[start] == ' ' || d.text[start] == '\t' || d.text[start] == '\r' || d.text[start] == '\n') {
				start++
			}
		}
	}
	if data == nil {
		data = []uint32{}
	}
	return &protocol.SemanticTokens{Data: data}, nil
}

// Request answers a request the protocol package does not know.
func (s *Server) Request(_ context.Context, method string, _ any) (any, error) {
	return nil, fmt.Errorf("%q: %w", method, jsonrpc2.ErrMethodNotFound)
}
