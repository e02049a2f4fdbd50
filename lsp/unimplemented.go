// Stubs for the methods of protocol.Server (go.lsp.dev/protocol v0.12.0)
// that croql does not serve.

package lsp

import (
	"context"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// unimplemented answers every request croql does not serve with
// MethodNotFound and ignores every notification it does not handle.
type unimplemented struct{}

func (unimplemented) WorkDoneProgressCancel(_ context.Context, _ *protocol.WorkDoneProgressCancelParams) (err error) {
	return nil
}

func (unimplemented) LogTrace(_ context.Context, _ *protocol.LogTraceParams) (err error) {
	return nil
}

func (unimplemented) SetTrace(_ context.Context, _ *protocol.SetTraceParams) (err error) {
	return nil
}

func (unimplemented) CodeLens(_ context.Context, _ *protocol.CodeLensParams) (result []protocol.CodeLens, err error) {
	return result, jsonrpc2.ErrMethodNotFound
}

func (unimplemented) CodeLensResolve(_ context.Context, _ *protocol.CodeLens) (result *protocol.CodeLens, err error) {
	return result, jsonrpc2.ErrMethodNotFound
}

func (unimplemented) ColorPresentation(_ context.Context, _ *protocol.ColorPresentationParams) (result []protocol.ColorPresentation, err error) {
	return result, jsonrpc2.ErrMethodNotFound
}

func (unimplemented) CompletionResolve(_ context.Context, _ *protocol.CompletionItem) (result *protocol.CompletionItem, err error) {
	return result, jsonrpc2.ErrMethodNotFound
}

func (unimplemented) Declaration(_ context.Context, _ *protocol.DeclarationParams) (result []protocol.Location, err error) {
	return result, jsonrpc2.ErrMethodNotFound
}

func (unimplemented) Definition(_ context.Context, _ *protocol.DefinitionParams) (result []protocol.Location, err error) {
	return result, jsonrpc2.ErrMethodNotFound
}

func (unimplemented) DidChangeWatchedFiles(_ context.Context, _ *protocol.DidChangeWatchedFilesParams) (err error) {
	return nil
}

func (unimplemented) DidChangeWorkspaceFolders(_ context.Context, _ *protocol.DidChangeWorkspaceFoldersParams) (err error) {
	return nil
}

func (unimplemented) DidSave(_ context.Context, _ *protocol.DidSaveTextDocumentParams) (err error) {
	return nil
}

func (unimplemented) DocumentColor(_ context.Context, _ *protocol.DocumentColorParams) (result []protocol.ColorInformation, err error) {
	return result, jsonrpc2.ErrMethodNotFound
}

func (unimplemented) DocumentHighlight(_ context.Context, _ *protocol.DocumentHighlightParams) (result []protocol.DocumentHighlight, err error) {
	return result, jsonrpc2.ErrMethodNotFound
}

func (unimplemented) DocumentLink(_ context.Context, _ *protocol.DocumentLinkParams) (result []protocol.DocumentLink, err error) {
	return result, jsonrpc2.ErrMethodNotFound
}

func (unimplemented) DocumentLinkResolve(_ context.Context, _ *protocol.DocumentLink) (result *protocol.DocumentLink, err error) {
	return result, jsonrpc2.ErrMethodNotFound
}

func (unimplemented) DocumentSymbol(_ context.Context, _ *protocol.DocumentSymbolParams) (result []interface{}, err error) {
	return result, jsonrpc2.ErrMethodNotFound
}

func (unimplemented) ExecuteCommand(_ context.Context, _ *protocol.ExecuteCommandParams) (result interface{}, err error) {
	return result, jsonrpc2.ErrMethodNotFound
}

func (unimplemented) FoldingRanges(_ context.Context, _ *protocol.FoldingRangeParams) (result []protocol.FoldingRange, err error) {
	return result, jsonrpc2.ErrMethodNotFound
}

func (unimplemented) Implementation(_ context.Context, _ *protocol.ImplementationParams) (result []protocol.Location, err error) {
	return result, jsonrpc2.ErrMethodNotFound
}

func (unimplemented) OnTypeFormatting(_ context.Context, _ *protocol.DocumentOnTypeFormattingParams) (result []protocol.TextEdit, err error) {
	return result, jsonrpc2.ErrMethodNotFound
}

func (unimplemented) PrepareRename(_ context.Context, _ *protocol.PrepareRenameParams) (result *protocol.Range, err error) {
	return result, jsonrpc2.ErrMethodNotFound
}

func (unimplemented) RangeFormatting(_ context.Context, _ *protocol.DocumentRangeFormattingParams) (result []protocol.TextEdit, err error) {
	return result, jsonrpc2.ErrMethodNotFound
}

func (unimplemented) References(_ context.Context, _ *protocol.ReferenceParams) (result []protocol.Location, err error) {
	return result, jsonrpc2.ErrMethodNotFound
}

func (unimplemented) Rename(_ context.Context, _ *protocol.RenameParams) (result *protocol.WorkspaceEdit, err error) {
	return result, jsonrpc2.ErrMethodNotFound
}

func (unimplemented) SignatureHelp(_ context.Context, _ *protocol.SignatureHelpParams) (result *protocol.SignatureHelp, err error) {
	return result, jsonrpc2.ErrMethodNotFound
}

func (unimplemented) Symbols(_ context.Context, _ *protocol.WorkspaceSymbolParams) (result []protocol.SymbolInformation, err error) {
	return result, jsonrpc2.ErrMethodNotFound
}

func (unimplemented) TypeDefinition(_ context.Context, _ *protocol.TypeDefinitionParams) (result []protocol.Location, err error) {
	return result, jsonrpc2.ErrMethodNotFound
}

func (unimplemented) WillSave(_ context.Context, _ *protocol.WillSaveTextDocumentParams) (err error) {
	return nil
}

func (unimplemented) WillSaveWaitUntil(_ context.Context, _ *protocol.WillSaveTextDocumentParams) (result []protocol.TextEdit, err error) {
	return result, jsonrpc2.ErrMethodNotFound
}

func (unimplemented) ShowDocument(_ context.Context, _ *protocol.ShowDocumentParams) (result *protocol.ShowDocumentResult, err error) {
	return result, jsonrpc2.ErrMethodNotFound
}

func (unimplemented) WillCreateFiles(_ context.Context, _ *protocol.CreateFilesParams) (result *protocol.WorkspaceEdit, err error) {
	return result, jsonrpc2.ErrMethodNotFound
}

func (unimplemented) DidCreateFiles(_ context.Context, _ *protocol.CreateFilesParams) (err error) {
	return nil
}

func (unimplemented) WillRenameFiles(_ context.Context, _ *protocol.RenameFilesParams) (result *protocol.WorkspaceEdit, err error) {
	return result, jsonrpc2.ErrMethodNotFound
}

func (unimplemented) DidRenameFiles(_ context.Context, _ *protocol.RenameFilesParams) (err error) {
	return nil
}

func (unimplemented) WillDeleteFiles(_ context.Context, _ *protocol.DeleteFilesParams) (result *protocol.WorkspaceEdit, err error) {
	return result, jsonrpc2.ErrMethodNotFound
}

func (unimplemented) DidDeleteFiles(_ context.Context, _ *protocol.DeleteFilesParams) (err error) {
	return nil
}

func (unimplemented) CodeLensRefresh(_ context.Context) (err error) {
	return nil
}

func (unimplemented) PrepareCallHierarchy(_ context.Context, _ *protocol.CallHierarchyPrepareParams) (result []protocol.CallHierarchyItem, err error) {
	return result, jsonrpc2.ErrMethodNotFound
}

func (unimplemented) IncomingCalls(_ context.Context, _ *protocol.CallHierarchyIncomingCallsParams) (result []protocol.CallHierarchyIncomingCall, err error) {
	return result, jsonrpc2.ErrMethodNotFound
}

func (unimplemented) OutgoingCalls(_ context.Context, _ *protocol.CallHierarchyOutgoingCallsParams) (result []protocol.CallHierarchyOutgoingCall, err error) {
	return result, jsonrpc2.ErrMethodNotFound
}

func (unimplemented) SemanticTokensFullDelta(_ context.Context, _ *protocol.SemanticTokensDeltaParams) (result interface{}, err error) {
	return result, jsonrpc2.ErrMethodNotFound
}

func (unimplemented) SemanticTokensRange(_ context.Context, _ *protocol.SemanticTokensRangeParams) (result *protocol.SemanticTokens, err error) {
	return result, jsonrpc2.ErrMethodNotFound
}

func (unimplemented) SemanticTokensRefresh(_ context.Context) (err error) {
	return nil
}

func (unimplemented) LinkedEditingRange(_ context.Context, _ *protocol.LinkedEditingRangeParams) (result *protocol.LinkedEditingRanges, err error) {
	return result, jsonrpc2.ErrMethodNotFound
}

func (unimplemented) Moniker(_ context.Context, _ *protocol.MonikerParams) (result []protocol.Moniker, err error) {
	return result, jsonrpc2.ErrMethodNotFound
}
