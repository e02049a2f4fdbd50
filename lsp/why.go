package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/croql/croql"
	"github.com/croql/croql/editor"
	"github.com/croql/croql/schema"
)

// CommandWhy is the workspace/executeCommand that explains a document's
// query on one object of a project file (croql.Query.Why, as `croql why`
// prints it). Its one argument is a WhyArgs; its result a WhyResult.
const CommandWhy = "croql.why"

// WhyArgs are the argument of CommandWhy: the open document whose query
// is explained, the id of the object (of the document's context), and the
// project file the object is read from (docs/data-format.md; relative to
// the workspace root). Data may be left out when the settings name a
// project.
type WhyArgs struct {
	URI  protocol.DocumentURI `json:"uri"`
	ID   int64                `json:"id"`
	Data string               `json:"data,omitempty"`
}

// WhyResult is the result of CommandWhy: the explanation as `croql why`
// prints it (Text) and as `croql why --format json` does.
type WhyResult struct {
	Text        string             `json:"text"`
	Explanation *croql.Explanation `json:"explanation"`
}

// ExecuteCommand runs CommandWhy; any other command is an error.
func (s *Server) ExecuteCommand(_ context.Context, params *protocol.ExecuteCommandParams) (any, error) {
	if params.Command != CommandWhy {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("croql lsp: unknown command %q (the server has %s)", params.Command, CommandWhy))
	}
	if len(params.Arguments) != 1 {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("croql lsp: %s takes one argument, {uri, id, data}", CommandWhy))
	}
	raw, err := json.Marshal(params.Arguments[0])
	var args WhyArgs
	if err == nil {
		err = json.Unmarshal(raw, &args)
	}
	if err != nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("croql lsp: %s: %v", CommandWhy, err))
	}
	return s.why(args)
}

// why explains the query of args.URI on the object args.ID of the project
// file.
func (s *Server) why(args WhyArgs) (*WhyResult, error) {
	d, err := s.doc(args.URI)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	path, root, edition := args.Data, s.root, s.settings.Edition
	if path == "" {
		path = s.settings.Project
	}
	s.mu.Unlock()
	if path == "" {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("croql lsp: %s needs a project file: give data, or set project in %s", CommandWhy, ConfigFile))
	}
	if !filepath.IsAbs(path) && root != "" {
		path = filepath.Join(root, path)
	}
	p, err := readProject(path)
	if err != nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("croql lsp: %s: project %s: %v", CommandWhy, path, err))
	}
	dir, src := editor.ParseDirective(d.text)
	if dir.Edition != "" {
		edition = dir.Edition
	}
	opts := []croql.Option{croql.WithUserIDs(p.UserIDs()), croql.WithLanguages(p.LanguageCodes()...)}
	if edition == "enterprise" {
		opts = append(opts, croql.WithEdition(croql.Enterprise))
	}
	env, err := croql.NewEnv(d.env.Context().Name, opts...)
	if err != nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("croql lsp: %s: %v", CommandWhy, err))
	}
	q, diags := env.Compile(src)
	if diags.HasErrors() {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("croql lsp: %s: the query has errors: %v", CommandWhy, diags.Err()))
	}
	var obj any
	for _, o := range p.Objects(env.Context()) {
		if id, ok := schema.ObjectID(o); ok && id == args.ID {
			obj = o
			break
		}
	}
	if obj == nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("croql lsp: %s: the %s context of %s has no object with id %d", CommandWhy, env.Context().Name, path, args.ID))
	}
	e, err := q.Why(obj)
	if err != nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InternalError, fmt.Sprintf("croql lsp: %s: %v", CommandWhy, err))
	}
	return &WhyResult{Text: e.String(), Explanation: e}, nil
}

func readProject(path string) (*schema.Project, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return schema.ReadProject(f)
}
