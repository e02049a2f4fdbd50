// Package editor gives editors what they need on CroQL text that is still
// being typed: its diagnostics, completions at the cursor, a hover for
// the name under it, and semantic tokens for highlighting, all from one
// tolerant parse (parser.ParseTolerant).
//
//	env, err := croql.NewEnv(croql.Strings, croql.WithUserIDs(logins))
//	...
//	doc := editor.Open(env, text) // one parse per text version
//	located := doc.Lint()         // every diagnostic, lines and UTF-16 columns
//	items := doc.Complete(offset) // best first
//	hover := doc.Hover(offset)    // nil where there is nothing to describe
//	tokens := doc.SemanticTokens()
//
// A Document is checked with its croql.Env's context, edition, user
// directory, language codes, clock and parser limits, which it reads
// through croql.Env.CheckConfig and croql.Env.Parser; its diagnostics are
// the ones croql.Env.Check reports for the text, the cost budget aside.
// Offsets and ranges
// are byte offsets into the text; an offset inside a UTF-8 sequence is
// moved back to the start of its character, and one outside the text to its
// nearest end.
//
// A query file may start with an editor directive (DirectivePrefix), a
// first line such as
//
//	# croql: context=translations edition=enterprise
//
// that says which context the text is written for. ParseDirective reads
// it; Open blanks it (offsets do not move), completes its settings, and
// classifies it as a comment token. The directive is not part of the
// language: croql.Env.Check and the platform reject it.
//
// Package lsp serves these calls as a language server, and the web
// playground calls them from WebAssembly; docs/editor.md describes the
// completion, hover and recovery rules.
package editor
