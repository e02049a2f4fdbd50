package editor

import (
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/croql/croql"
	"github.com/croql/croql/ast"
	"github.com/croql/croql/diag"
	"github.com/croql/croql/parser"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/typecheck"
)

// This file holds what completion, hover and semantic tokens share: the
// editor directive, and the scopes and types at a point of a tree the
// tolerant parser recovered.

// DirectivePrefix starts an editor directive: a first line such as
//
//	# croql: context=translations edition=enterprise
//
// CroQL itself has no comments (`#` is an unexpected character); the
// directive is read and blanked by editors (the language server, the
// playground) before the text is checked, so that a query file can say
// which context it is written for.
const DirectivePrefix = "# croql:"

// Directive is what an editor directive sets. Empty fields are not set.
type Directive struct {
	// Context is the context= value.
	Context string
	// Edition is the edition= value ("standard" or "enterprise").
	Edition string
	// Span is the directive line, newline excluded; empty when there is no
	// directive.
	Span diag.Span
	// Diags reports keys and values the directive does not know.
	Diags diag.List
}

// ParseDirective reads the directive on the first line of src, if any,
// and returns it with the text to check: src with the directive line
// replaced by spaces, so that every byte offset stays where it was. A text
// without a directive is returned unchanged.
func ParseDirective(src string) (Directive, string) {
	if !strings.HasPrefix(src, DirectivePrefix) {
		return Directive{}, src
	}
	end := strings.IndexByte(src, '\n')
	if end < 0 {
		end = len(src)
	}
	d := Directive{Span: diag.Span{Start: 0, End: end}}
	line := src[:end]
	off := len(DirectivePrefix)
	for _, f := range strings.Fields(line[off:]) {
		at := strings.Index(line[off:], f) + off
		off = at + len(f)
		sp := diag.Span{Start: at, End: at + len(f)}
		k, v, ok := strings.Cut(f, "=")
		switch {
		case ok && strings.EqualFold(k, "context"):
			d.Context = v
		case ok && strings.EqualFold(k, "edition"):
			if !strings.EqualFold(v, "standard") && !strings.EqualFold(v, "enterprise") {
				d.Diags = append(d.Diags, diag.Warnf("directive", sp, "unknown edition %q in the directive: write edition=standard or edition=enterprise", v))
				continue
			}
			d.Edition = strings.ToLower(v)
		default:
			d.Diags = append(d.Diags, diag.Warnf("directive", sp, "unknown directive setting %q: the directive takes context=NAME and edition=standard|enterprise", f))
		}
	}
	return d, strings.Repeat(" ", end) + src[end:]
}

// Document is one text parsed once, tolerantly, for an editor: its
// diagnostics, completions, hovers and semantic tokens all come from the
// same parse, so a keystroke costs one parse. A leading editor directive
// is blanked before parsing (offsets do not move) and reported by
// Directive; the document is checked in the Env's context, so a caller
// that honours the directive's context opens the text with an Env of that
// context. A Document is immutable and safe for concurrent use.
type Document struct {
	cfg       typecheck.Config // the Env's (croql.Env.CheckConfig)
	parser    *parser.Parser   // the Env's (croql.Env.Parser)
	text      string           // the text as given
	src       string           // the text, directive blanked
	directive Directive
	part      *parser.Partial

	once  sync.Once
	diags diag.List
}

// Open parses src for editing in env's context, with env's edition, user
// directory, language codes, clock and parser limits. It never fails: text
// that does not parse gets its syntax diagnostics and the tree
// parser.ParseTolerant recovers.
func Open(env *croql.Env, src string) *Document {
	d := &Document{cfg: env.CheckConfig(), parser: env.Parser(), text: src}
	d.directive, d.src = ParseDirective(src)
	d.part = d.parser.ParseTolerant(d.src)
	return d
}

// Directive is the document's editor directive (zero when it has none).
func (d *Document) Directive() Directive { return d.directive }

// Diagnostics are the diagnostics croql.Env.Check reports for the text (the
// directive blanked), sorted by position, followed by none for the
// directive itself: its findings are in Directive().Diags.
func (d *Document) Diagnostics() diag.List {
	d.once.Do(func() {
		if d.part.Diags.HasErrors() || d.part.Tree == nil {
			d.diags = typecheck.CheckFixes(d.cfg, d.src, d.part.Diags, d.parser.Parse)
			d.diags.Sort()
			return
		}
		d.diags = typecheck.CheckFixes(d.cfg, d.src, typecheck.Check(d.cfg, d.src, d.part.Tree).Diags, d.parser.Parse)
	})
	return d.diags
}

// Lint is Diagnostics with lines and columns (runes and UTF-16) resolved.
func (d *Document) Lint() []diag.Located {
	return diag.NewSource(d.src).Locate(d.Diagnostics())
}

// scopesAt returns the objects whose fields are in scope at offset, the
// context's root first and the innermost filter's element last.
func (d *Document) scopesAt(offset int) []*schema.Object {
	scopes := []*schema.Object{d.cfg.Context.Root}
	for _, s := range d.part.Scopes {
		if offset < s.Body.Start || offset > s.Body.End {
			continue
		}
		t := typeOf(s.Filter.X, scopes)
		switch {
		case t.Kind == schema.Collection && t.Obj != nil:
			scopes = append(scopes, t.Obj)
		case s.Filter.Kind == ast.With && (t.Kind == schema.Record || t.Kind == schema.User) && t.Obj != nil:
			scopes = append(scopes, t.Obj)
		}
	}
	return scopes
}

// lookup resolves a field name in scopes, innermost first, and returns the
// depth (0: innermost) it was found at.
func lookup(name string, scopes []*schema.Object) (*schema.Field, *schema.Object, int) {
	for i := len(scopes) - 1; i >= 0; i-- {
		if f, ok := scopes[i].Field(name); ok {
			return f, scopes[i], len(scopes) - 1 - i
		}
	}
	return nil, nil, -1
}

// typeOf is the type of a name, member or filter in scopes, or an invalid
// type when it cannot be told.
func typeOf(x ast.Expr, scopes []*schema.Object) schema.Type {
	switch n := x.(type) {
	case *ast.Ident:
		if f, _, _ := lookup(n.Name, scopes); f != nil {
			return f.Type
		}
	case *ast.Member:
		if schema.NormalKey(n.Name.Name) == "count" {
			return schema.TInt
		}
		t := typeOf(n.X, scopes)
		if (t.Kind == schema.Record || t.Kind == schema.User) && t.Obj != nil {
			if f, ok := t.Obj.Field(n.Name.Name); ok {
				return f.Type
			}
		}
	case *ast.Filter:
		if n.Kind == ast.Where {
			return typeOf(n.X, scopes)
		}
		return schema.TBool
	}
	return schema.Type{}
}

// memberOf returns the member expression whose name is id, if any.
func memberOf(tree ast.Expr, id *ast.Ident) *ast.Member {
	var found *ast.Member
	ast.Inspect(tree, func(x ast.Expr) bool {
		if found != nil {
			return false
		}
		if m, ok := x.(*ast.Member); ok && m.Name == id {
			found = m
			return false
		}
		return true
	})
	return found
}

// fieldDetail is the detail line of a field: its type, and whether it can
// be absent.
func fieldDetail(f *schema.Field) string {
	if f.Nullable {
		return fmt.Sprintf("%s (may be absent)", f.Type)
	}
	return f.Type.String()
}

// clampOffset keeps an offset inside src and moves one that falls inside
// a UTF-8 sequence back to the start of its character.
func clampOffset(offset int, src string) int {
	offset = max(0, min(offset, len(src)))
	for offset > 0 && offset < len(src) && !utf8.RuneStart(src[offset]) {
		offset--
	}
	return offset
}
