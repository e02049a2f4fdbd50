package editor

import (
	"github.com/croql/croql/ast"
	"github.com/croql/croql/diag"
	"github.com/croql/croql/parser"
	"github.com/croql/croql/schema"
)

// TokenKind is the class of a semantic token.
type TokenKind uint8

// The semantic token kinds.
const (
	TokenField    TokenKind = iota // a field name (also an unknown one)
	TokenKeyword                   // and, or, not, of, where, with, between, contains, if, then, else, count
	TokenMention                   // @user:"alice", @language:"de"
	TokenLiteral                   // a number, string or datetime
	TokenOperator                  // = != < <= > >= + - * / ≠ ≤ ≥
	TokenComment                   // the editor directive line
)

var tokenKindNames = [...]string{"field", "keyword", "mention", "literal", "operator", "comment"}

func (k TokenKind) String() string {
	if int(k) < len(tokenKindNames) {
		return tokenKindNames[k]
	}
	return "invalid"
}

// MarshalText writes the kind's name.
func (k TokenKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// SemanticToken is one classified span of the source.
type SemanticToken struct {
	Span diag.Span `json:"span"`
	Kind TokenKind `json:"kind"`
	// Literal is the literal's type for a TokenLiteral: "int", "float",
	// "string" or "datetime".
	Literal string `json:"literal,omitempty"`
	// Unknown marks a field name that no scope has.
	Unknown bool `json:"unknown,omitempty"`
}

// SemanticTokens classifies every token of the text, in source order, from
// the tolerant parse (so it works on incomplete text): field names,
// keywords (`count` of `count of` included), mentions, literals and
// operators; parentheses are left out. A leading editor directive is a
// comment token.
func (d *Document) SemanticTokens() []SemanticToken {
	part := d.part
	var out []SemanticToken
	if d.directive.Span.End > 0 {
		out = append(out, SemanticToken{Span: d.directive.Span, Kind: TokenComment})
	}
	// The identifiers of the tree, by start offset, with their scopes.
	type idInfo struct {
		count, known bool
	}
	ids := map[int]idInfo{}
	ast.Inspect(part.Tree, func(x ast.Expr) bool {
		switch n := x.(type) {
		case *ast.Member:
			if schema.NormalKey(n.Name.Name) == "count" {
				ids[n.Name.Sp.Start] = idInfo{count: true, known: true}
			} else {
				t := typeOf(n.X, d.scopesAt(n.Sp.Start))
				known := false
				if (t.Kind == schema.Record || t.Kind == schema.User) && t.Obj != nil {
					_, known = t.Obj.Field(n.Name.Name)
				}
				ids[n.Name.Sp.Start] = idInfo{known: known}
			}
		case *ast.Ident:
			if _, done := ids[n.Sp.Start]; !done && n.Name != "" {
				f, _, _ := lookup(n.Name, d.scopesAt(n.Sp.Start))
				ids[n.Sp.Start] = idInfo{known: f != nil}
			}
		}
		return true
	})
	for _, t := range part.Tokens {
		st := SemanticToken{Span: t.Span}
		switch t.Kind {
		case parser.TokIdent:
			info, ok := ids[t.Span.Start]
			st.Kind, st.Unknown = TokenField, ok && !info.known
			if info.count {
				st.Kind = TokenKeyword
			}
		case parser.TokKeyword:
			st.Kind = TokenKeyword
		case parser.TokOperator:
			st.Kind = TokenOperator
		case parser.TokMention:
			st.Kind = TokenMention
		case parser.TokInt:
			st.Kind, st.Literal = TokenLiteral, "int"
		case parser.TokFloat:
			st.Kind, st.Literal = TokenLiteral, "float"
		case parser.TokString:
			st.Kind, st.Literal = TokenLiteral, "string"
		case parser.TokDatetime:
			st.Kind, st.Literal = TokenLiteral, "datetime"
		default:
			continue
		}
		out = append(out, st)
	}
	return out
}
