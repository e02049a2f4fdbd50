package editor

import (
	"fmt"
	"slices"
	"strings"

	"github.com/croql/croql/ast"
	"github.com/croql/croql/diag"
	"github.com/croql/croql/parser"
	"github.com/croql/croql/schema"
)

// HoverInfo describes the name, mention, keyword or literal under the
// cursor.
type HoverInfo struct {
	// Range is the bytes of the source described.
	Range diag.Span `json:"range"`
	// Kind is "field", "mention", "keyword" or "literal".
	Kind string `json:"kind"`
	// Name is the field's documented name, the mention or the keyword.
	Name string `json:"name"`
	// Type is the CroQL type ("int", "bool", "collection of translation").
	Type string `json:"type,omitempty"`
	// Nullable is set for a field whose value can be absent.
	Nullable bool `json:"nullable,omitempty"`
	// Doc is the documentation line.
	Doc string `json:"doc,omitempty"`
	// Edition is the lowest edition that has the field.
	Edition string `json:"edition,omitempty"`
	// Of is the object the field belongs to ("translation").
	Of string `json:"of,omitempty"`
	// Values are the known values of an enumerated field.
	Values []string `json:"values,omitempty"`
	// Resolved says what a mention stands for: "user id 42", "language
	// code de", or why it does not resolve.
	Resolved string `json:"resolved,omitempty"`
	// ID is the user id of a resolved @user mention.
	ID *int64 `json:"id,omitempty"`
}

// Markdown renders the hover the way editors show it.
func (h *HoverInfo) Markdown() string {
	var b strings.Builder
	switch h.Kind {
	case "field":
		fmt.Fprintf(&b, "**%s**: `%s`", h.Name, h.Type)
		if h.Nullable {
			b.WriteString(" (may be absent)")
		}
		if h.Of != "" {
			fmt.Fprintf(&b, " — field of %s", h.Of)
		}
		if h.Edition == schema.Enterprise.String() {
			b.WriteString(" — enterprise edition")
		}
	case "mention":
		fmt.Fprintf(&b, "**%s**: `%s`", h.Name, h.Type)
		if h.Resolved != "" {
			fmt.Fprintf(&b, " — %s", h.Resolved)
		}
	default:
		fmt.Fprintf(&b, "**%s**", h.Name)
		if h.Type != "" {
			fmt.Fprintf(&b, ": `%s`", h.Type)
		}
	}
	if h.Doc != "" {
		b.WriteString("\n\n" + h.Doc)
	}
	if len(h.Values) > 0 {
		b.WriteString("\n\nValues: " + strings.Join(h.Values, ", "))
	}
	return b.String()
}

// Hover describes what stands at byte offset in the text: a field (its
// type, documentation, edition and object, resolved in the scope it is
// written in), a mention (the user id a login resolves to in the user
// directory, or whether a language code is known), a keyword or a literal.
// It returns nil where there is nothing to describe.
func (d *Document) Hover(offset int) *HoverInfo {
	src, part := d.src, d.part
	offset = clampOffset(offset, src)
	var tok *parser.Token
	for i := range part.Tokens {
		t := &part.Tokens[i]
		if t.Span.Start <= offset && offset < t.Span.End {
			tok = t
			break
		}
		if t.Span.End == offset && tok == nil {
			tok = t // just after a token: still it, unless one starts here
		}
	}
	if tok == nil {
		return nil
	}
	switch tok.Kind {
	case parser.TokIdent:
		return d.hoverIdent(tok)
	case parser.TokMention:
		return d.hoverMention(tok)
	case parser.TokKeyword:
		k := strings.ToLower(tok.Text)
		return &HoverInfo{Range: tok.Span, Kind: "keyword", Name: k, Doc: keywordDoc(k)}
	case parser.TokInt:
		return &HoverInfo{Range: tok.Span, Kind: "literal", Name: tok.Text, Type: "int"}
	case parser.TokFloat:
		return &HoverInfo{Range: tok.Span, Kind: "literal", Name: tok.Text, Type: "float"}
	case parser.TokString:
		return &HoverInfo{Range: tok.Span, Kind: "literal", Name: tok.Text, Type: "string"}
	case parser.TokDatetime:
		return &HoverInfo{Range: tok.Span, Kind: "literal", Name: tok.Text, Type: "datetime"}
	}
	return nil
}

func (d *Document) hoverIdent(tok *parser.Token) *HoverInfo {
	part := d.part
	var id *ast.Ident
	ast.Inspect(part.Tree, func(x ast.Expr) bool {
		if n, ok := x.(*ast.Ident); ok && n.Sp == tok.Span {
			id = n
		}
		return id == nil
	})
	scopes := d.scopesAt(tok.Span.Start)
	var f *schema.Field
	var obj *schema.Object
	if id != nil {
		if m := memberOf(part.Tree, id); m != nil {
			if schema.NormalKey(id.Name) == "count" {
				return &HoverInfo{Range: tok.Span, Kind: "keyword", Name: "count of", Type: "int", Doc: countOfDoc}
			}
			t := typeOf(m.X, scopes)
			if (t.Kind == schema.Record || t.Kind == schema.User) && t.Obj != nil {
				f, _ = t.Obj.Field(id.Name)
				obj = t.Obj
			}
			if f == nil {
				return nil
			}
		}
	}
	if f == nil {
		f, obj, _ = lookup(tok.Text, scopes)
	}
	if f == nil {
		return nil
	}
	return &HoverInfo{Range: tok.Span, Kind: "field", Name: f.Name, Type: f.Type.String(), Nullable: f.Nullable,
		Doc: f.Doc, Edition: f.Edition.String(), Of: obj.Name, Values: f.Enum}
}

func (d *Document) hoverMention(tok *parser.Token) *HoverInfo {
	var m *ast.Mention
	ast.Inspect(d.part.Tree, func(x ast.Expr) bool {
		if n, ok := x.(*ast.Mention); ok && n.Sp == tok.Span {
			m = n
		}
		return m == nil
	})
	if m == nil {
		return nil
	}
	h := &HoverInfo{Range: tok.Span, Kind: "mention", Name: tok.Text, Type: m.Kind}
	switch m.Kind {
	case "user":
		h.Doc = "A user, by login; compared with user fields and user ids."
		users := d.cfg.Users
		switch id, ok := users[m.Value]; {
		case users == nil:
			h.Resolved = "not resolved: no user directory"
		case ok:
			h.ID = &id
			h.Resolved = fmt.Sprintf("user id %d", id)
		default:
			h.Resolved = fmt.Sprintf("unknown login %q", m.Value)
		}
	case "language":
		h.Doc = "A language, by code; compared with language fields."
		langs := d.cfg.Languages
		switch {
		case langs == nil:
			h.Resolved = "language code " + m.Value
		case slices.Contains(langs, m.Value):
			h.Resolved = "language code " + m.Value + " (known)"
		default:
			h.Resolved = fmt.Sprintf("unknown language code %q", m.Value)
		}
	}
	return h
}
