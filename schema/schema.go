// Package schema describes what a CroQL query can see: the evaluation
// contexts (source strings, translations, TM segments, glossary terms and
// glossary concepts), the fields of every object and collection element with
// their types, nullability, allowed values, edition and documentation, and
// the Go types of the objects queried.
//
// A [Catalog] is built fresh by [New]; it is immutable afterwards and safe to
// share. Nothing in this package is global state.
package schema

import (
	"reflect"
	"strings"
)

// Kind is the kind of a CroQL type.
type Kind uint8

// The kinds of CroQL values.
const (
	Invalid    Kind = iota
	Bool            // true or false
	Int             // 64-bit integer
	Float           // float64
	String          // text
	Datetime        // second precision instant (schema.Time)
	Language        // a language code, compared with @language:"code"
	User            // a user id, compared with integers and @user:"login"; members id, login
	Record          // an object with fields (file, branch, ...)
	Collection      // an array of objects
)

var kindNames = [...]string{"invalid", "bool", "int", "float", "string", "datetime", "language", "user", "object", "collection"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "invalid"
}

// Type is a CroQL type. Obj is the object for Record, the element for
// Collection, and the user object for User.
type Type struct {
	Kind Kind
	Obj  *Object
}

// Scalar types, for convenience.
var (
	TBool     = Type{Kind: Bool}
	TInt      = Type{Kind: Int}
	TFloat    = Type{Kind: Float}
	TString   = Type{Kind: String}
	TDatetime = Type{Kind: Datetime}
	TLanguage = Type{Kind: Language}
)

// String names the type as messages show it: "int", "collection of translations".
func (t Type) String() string {
	switch t.Kind {
	case Record:
		if t.Obj != nil {
			return "object " + t.Obj.Name
		}
	case Collection:
		if t.Obj != nil {
			return "collection of " + t.Obj.Name
		}
	}
	return t.Kind.String()
}

// IsNumeric reports whether t is int or float.
func (t Type) IsNumeric() bool { return t.Kind == Int || t.Kind == Float }

// Edition is the platform edition a field is available in.
type Edition uint8

// The editions. A field of Enterprise is an error in Standard.
const (
	Standard Edition = iota
	Enterprise
)

func (e Edition) String() string {
	if e == Enterprise {
		return "enterprise"
	}
	return "standard"
}

// Field is one field of an object.
type Field struct {
	// Name is the documented spelling, as the formatter prints it
	// ("is hidden", "usageCount", "languages summary").
	Name string
	// Key is the normal form names resolve by: see NormalKey.
	Key  string
	Type Type
	// Nullable is true when the value can be absent (a nil pointer in Go).
	Nullable bool
	// Enum lists the known values of an enumerated string field.
	Enum []string
	// Edition is the lowest edition that has the field.
	Edition Edition
	// Doc is one line for hover and completion.
	Doc string
	// BoolAlso marks a nullable datetime that may also stand as a bool, true
	// when set (languages summary `translation updated`).
	BoolAlso bool

	// GoName is the name of the Go struct field of Object.GoType that holds
	// the value. For a User field the Go field is an int64 id (or *int64).
	GoName string
	// Equals, when set, makes the field a bool that is true when the Go
	// string field GoName equals this value ("type is plain": Type == "plain").
	Equals string
	// Negate, when set, makes the field a bool that is the negation of the
	// Go bool field GoName ("is visible": !IsHidden).
	Negate bool
}

// Object is an object type or a collection's element type.
type Object struct {
	// Name is how messages name it ("source string", "translation",
	// "languages summary element").
	Name   string
	Fields []*Field
	// GoType is the Go struct type (not a pointer) of the object.
	GoType reflect.Type

	byKey map[string]*Field
}

// NewObject builds an object and indexes its fields by key. Keys are
// computed from names when empty.
func NewObject(name string, goType reflect.Type, fields ...*Field) *Object {
	o := &Object{Name: name, GoType: goType, Fields: fields, byKey: make(map[string]*Field, len(fields))}
	for _, f := range fields {
		if f.Key == "" {
			f.Key = NormalKey(f.Name)
		}
		o.byKey[f.Key] = f
	}
	return o
}

// Field returns the field whose normal key is NormalKey(name).
func (o *Object) Field(name string) (*Field, bool) {
	f, ok := o.byKey[NormalKey(name)]
	return f, ok
}

// NormalKey is the form names resolve by: the camelCase normal form,
// case-insensitively, so "is hidden", "isHidden" and "IS HIDDEN" are all
// "ishidden", and "usage count" is "usagecount".
func NormalKey(name string) string {
	var b strings.Builder
	b.Grow(len(name))
	for _, r := range name {
		switch {
		case r == ' ' || r == '\t' || r == '\n' || r == '\r':
		case r >= 'A' && r <= 'Z':
			b.WriteRune(r + ('a' - 'A'))
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Context is one evaluation context: the kind of object a query runs on.
type Context struct {
	// Name is the CLI and API name: strings, translations, tm, glossary, concepts.
	Name string
	// Title is how messages name it ("source strings").
	Title string
	// Aliases are other names Catalog.Context accepts ("segments", "terms").
	Aliases []string
	// Endpoint is the list endpoint that accepts the query, if any.
	Endpoint string
	// Root is the object each query is evaluated on.
	Root *Object
}

// Catalog is every context and object of the language.
type Catalog struct {
	Contexts []*Context
	// Objects is every object type, each once, for "is a field of X, not of
	// Y" messages and for checks that every field is bound.
	Objects []*Object
	// UserObj is the object a User value exposes (id, login).
	UserObj *Object
}

// Context returns the context named name (or one of its aliases).
func (c *Catalog) Context(name string) (*Context, bool) {
	for _, x := range c.Contexts {
		if strings.EqualFold(x.Name, name) {
			return x, true
		}
		for _, a := range x.Aliases {
			if strings.EqualFold(a, name) {
				return x, true
			}
		}
	}
	return nil, false
}
