// Package bind evaluates CroQL queries over a service's own Go types, the
// evaluator's twin of mapping.Mapping (which maps a service's own tables).
//
// A Binding ties a struct type T of the service to the root object of a
// context. Each field of T that a query may read carries a `croql` tag
// naming the CroQL field it holds, in its documented spelling (`croql
// fields --context C` lists them):
//
//	type Ticket struct {
//		Body     string     `croql:"text"`
//		Limit    *int       `croql:"max length"` // nil: absent
//		Hidden   bool       `croql:"is hidden"`  // also gives `is visible`
//		Created  time.Time  `croql:"added"`
//		Versions []Version  `croql:"translations"`
//	}
//
// A field of an object or a collection (`file`, `translations`) holds a
// struct, a pointer to one (nil: no object) or a slice of them, tagged the
// same way. Go types convert as their CroQL types need: integers of any
// signed size, uint8 to uint32 (wider unsigned integers could overflow and
// are refused), float32 and float64, string, bool, time.Time or int64 Unix
// seconds for datetimes, an integer user id for users, a language code
// string for languages. A CroQL field that may be absent takes a pointer
// (nil is absent) or a plain value (always present); one that is never
// absent takes a plain value. A tag naming a field that shares its Go
// storage with others binds them all: `type is plain` binds the string
// the platform calls the type (so `type is plural` too), `is hidden` binds
// `is visible`.
//
// New checks the tags and types when the binding is made; Compile checks
// the query against the binding, so a query that reads a field T does not
// bind is a diagnostic (rule "unbound-field") with its span, never a
// silent false. Query[T].Match takes a *T: it cannot be called with
// anything else, and a nil *T is an error wrapping croql.ErrMisuse. Each
// evaluation copies the fields the binding maps into the schema's own
// type, so it allocates; a hot path over millions of values is faster on
// the schema types themselves (croql.Query.Match).
package bind

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/croql/croql"
	"github.com/croql/croql/diag"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/typecheck"
)

// RuleUnbound is the rule of the diagnostic of a query that reads a field
// the binding does not map.
const RuleUnbound = "unbound-field"

// Tag is the struct tag key of a binding.
const Tag = "croql"

// Binding ties the Go struct type T to the root object of a context. It
// is immutable and safe for concurrent use.
type Binding[T any] struct {
	ctx  *schema.Context
	root *objBinding
	// byObj lists, for each schema object (by name: the environment a
	// query is compiled in has a catalog of its own), the bindings of the
	// Go types that fill it.
	byObj map[string][]*objBinding
}

// objBinding fills the schema object obj (of Go type obj.GoType) from the
// Go struct type src.
type objBinding struct {
	src    reflect.Type
	obj    *schema.Object
	fields []fieldBinding
	// goNames are the schema Go fields the binding fills.
	goNames map[string]bool
}

// fieldBinding copies one field of the source struct into one field of
// the schema struct.
type fieldBinding struct {
	src  []int // index path in the source struct
	dst  int   // index in the schema struct
	copy copier
}

// copier copies src (a field of the user's value) into dst (a settable
// field of a schema value).
type copier func(src, dst reflect.Value)

// New returns the binding of T, a struct type with `croql` tags, to the
// root object of context (croql.Strings, croql.Translations, croql.TM,
// croql.Glossary, croql.Concepts). It fails on an unknown context, a tag
// that names no field of its object (with the nearest name), a field
// tagged twice, and a Go type that cannot hold the field's values.
func New[T any](context string) (*Binding[T], error) {
	cat := schema.New()
	ctx, ok := cat.Context(context)
	if !ok {
		return nil, fmt.Errorf("bind: unknown context %q", context)
	}
	b := &Binding[T]{ctx: ctx, byObj: map[string][]*objBinding{}}
	root, err := b.object(reflect.TypeFor[T](), ctx.Root, map[bindKey]*objBinding{})
	if err != nil {
		return nil, fmt.Errorf("bind: %w", err)
	}
	b.root = root
	return b, nil
}

type bindKey struct {
	src reflect.Type
	obj *schema.Object
}

// object binds the Go struct type src to obj.
func (b *Binding[T]) object(src reflect.Type, obj *schema.Object, seen map[bindKey]*objBinding) (*objBinding, error) {
	if src.Kind() != reflect.Struct {
		return nil, fmt.Errorf("%s binds %s and must be a struct type", src, obj.Name)
	}
	if obj.GoType == nil {
		return nil, fmt.Errorf("%s has no Go type", obj.Name)
	}
	if ob := seen[bindKey{src, obj}]; ob != nil {
		return ob, nil
	}
	ob := &objBinding{src: src, obj: obj, goNames: map[string]bool{}}
	seen[bindKey{src, obj}] = ob
	taggedBy := map[string]string{}
	for _, sf := range reflect.VisibleFields(src) {
		name, ok := sf.Tag.Lookup(Tag)
		if !ok || name == "-" {
			continue
		}
		where := src.String() + "." + sf.Name
		if !sf.IsExported() {
			return nil, fmt.Errorf("%s is tagged %s:%q but not exported", where, Tag, name)
		}
		f, ok := obj.Field(name)
		if !ok {
			return nil, fmt.Errorf("%s: %q is not a field of %s%s", where, name, obj.Name, nearest(obj, name))
		}
		if f.GoName == "" {
			return nil, fmt.Errorf("%s: `%s` of %s has no storage to bind", where, f.Name, obj.Name)
		}
		if prev, dup := taggedBy[f.GoName]; dup {
			return nil, fmt.Errorf("%s and %s both bind `%s` of %s", prev, where, f.Name, obj.Name)
		}
		taggedBy[f.GoName] = where
		dst, ok := obj.GoType.FieldByName(f.GoName)
		if !ok || len(dst.Index) != 1 {
			return nil, fmt.Errorf("`%s` of %s has no Go field %s", f.Name, obj.Name, f.GoName)
		}
		cp, err := b.copierFor(sf.Type, dst.Type, f, seen)
		if err != nil {
			return nil, fmt.Errorf("%s (`%s` of %s): %w", where, f.Name, obj.Name, err)
		}
		ob.fields = append(ob.fields, fieldBinding{src: sf.Index, dst: dst.Index[0], copy: cp})
		ob.goNames[f.GoName] = true
	}
	b.byObj[obj.Name] = append(b.byObj[obj.Name], ob)
	return ob, nil
}

var (
	typeTime       = reflect.TypeFor[time.Time]()
	typeSchemaTime = reflect.TypeFor[schema.Time]()
)

// copierFor returns how to copy a Go value of type src into the schema's
// Go field of type dst that holds CroQL field f.
func (b *Binding[T]) copierFor(src, dst reflect.Type, f *schema.Field, seen map[bindKey]*objBinding) (copier, error) {
	switch k := f.Type.Kind; {
	case k == schema.Collection:
		if dst.Kind() != reflect.Slice || dst.Elem().Kind() != reflect.Struct {
			return nil, fmt.Errorf("schema type %s is not a slice of structs", dst)
		}
		if src.Kind() != reflect.Slice && src.Kind() != reflect.Array {
			return nil, fmt.Errorf("a collection needs a slice or array of structs, not %s", src)
		}
		elem, ptr := src.Elem(), false
		if elem.Kind() == reflect.Pointer {
			elem, ptr = elem.Elem(), true
		}
		eb, err := b.object(elem, f.Type.Obj, seen)
		if err != nil {
			return nil, err
		}
		return func(s, d reflect.Value) {
			n := s.Len()
			out := reflect.MakeSlice(dst, 0, n)
			for i := range n {
				e := s.Index(i)
				if ptr {
					if e.IsNil() {
						continue // a nil element is no element
					}
					e = e.Elem()
				}
				out = reflect.Append(out, reflect.Zero(dst.Elem()))
				eb.fill(e, out.Index(out.Len()-1))
			}
			d.Set(out)
		}, nil
	case k == schema.Record:
		if dst.Kind() != reflect.Pointer || dst.Elem().Kind() != reflect.Struct {
			return nil, fmt.Errorf("schema type %s is not a pointer to a struct", dst)
		}
		s, ptr := src, false
		if s.Kind() == reflect.Pointer {
			s, ptr = s.Elem(), true
		}
		eb, err := b.object(s, f.Type.Obj, seen)
		if err != nil {
			return nil, err
		}
		return func(sv, d reflect.Value) {
			if ptr {
				if sv.IsNil() {
					return // no object
				}
				sv = sv.Elem()
			}
			o := reflect.New(dst.Elem())
			eb.fill(sv, o.Elem())
			d.Set(o)
		}, nil
	}
	// A scalar, maybe behind a pointer on either side.
	dstPtr := dst.Kind() == reflect.Pointer
	dstElem := dst
	if dstPtr {
		dstElem = dst.Elem()
	}
	srcPtr := src.Kind() == reflect.Pointer
	srcElem := src
	if srcPtr {
		srcElem = src.Elem()
		if !dstPtr {
			return nil, fmt.Errorf("`%s` is never absent, so it takes %s, not a pointer", f.Name, srcElem)
		}
	}
	conv, err := scalar(srcElem, dstElem)
	if err != nil {
		return nil, err
	}
	return func(s, d reflect.Value) {
		if srcPtr {
			if s.IsNil() {
				return // absent
			}
			s = s.Elem()
		}
		if dstPtr {
			p := reflect.New(dstElem)
			conv(s, p.Elem())
			d.Set(p)
			return
		}
		conv(s, d)
	}, nil
}

// scalar returns the conversion of a Go scalar of type src into the
// schema's scalar type dst (int64, float64, string, bool, schema.Time).
func scalar(src, dst reflect.Type) (copier, error) {
	switch {
	case dst == typeSchemaTime:
		switch {
		case src == typeTime:
			return func(s, d reflect.Value) {
				d.SetInt(s.Interface().(time.Time).Unix())
			}, nil
		case isSigned(src):
			return func(s, d reflect.Value) { d.SetInt(s.Int()) }, nil
		}
		return nil, fmt.Errorf("a datetime takes time.Time or int64 Unix seconds, not %s", src)
	case dst.Kind() == reflect.Int64:
		switch {
		case isSigned(src):
			return func(s, d reflect.Value) { d.SetInt(s.Int()) }, nil
		case isSmallUnsigned(src):
			return func(s, d reflect.Value) { d.SetInt(int64(s.Uint())) }, nil
		}
		return nil, fmt.Errorf("an integer takes a signed integer type or uint8 to uint32, not %s", src)
	case dst.Kind() == reflect.Float64:
		if src.Kind() == reflect.Float64 || src.Kind() == reflect.Float32 {
			return func(s, d reflect.Value) { d.SetFloat(s.Float()) }, nil
		}
		return nil, fmt.Errorf("a float takes float32 or float64, not %s", src)
	case dst.Kind() == reflect.String:
		if src.Kind() == reflect.String {
			return func(s, d reflect.Value) { d.SetString(s.String()) }, nil
		}
		return nil, fmt.Errorf("a string takes a string type, not %s", src)
	case dst.Kind() == reflect.Bool:
		if src.Kind() == reflect.Bool {
			return func(s, d reflect.Value) { d.SetBool(s.Bool()) }, nil
		}
		return nil, fmt.Errorf("a bool takes a bool type, not %s", src)
	}
	return nil, fmt.Errorf("schema type %s cannot be bound", dst)
}

func isSigned(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return true
	}
	return false
}

func isSmallUnsigned(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Uint8, reflect.Uint16, reflect.Uint32:
		return true
	}
	return false
}

// fill copies the bound fields of the source struct value s into the
// schema struct value d.
func (ob *objBinding) fill(s, d reflect.Value) {
	for _, fb := range ob.fields {
		sv, err := s.FieldByIndexErr(fb.src)
		if err != nil {
			continue // through a nil embedded pointer: the zero value
		}
		fb.copy(sv, d.Field(fb.dst))
	}
}

// nearest returns "; did you mean `x`?" for the field of obj nearest to
// name, or "".
func nearest(obj *schema.Object, name string) string {
	best, bestD := "", len(name)/2+2
	for _, f := range obj.Fields {
		if d := distance(strings.ToLower(name), strings.ToLower(f.Name)); d < bestD {
			best, bestD = f.Name, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf("; did you mean %q?", best)
}

// distance is the Levenshtein distance of a and b, in bytes.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Context is the context whose root object the binding fills.
func (b *Binding[T]) Context() *schema.Context { return b.ctx }

// Bound reports whether the binding maps field f of obj (for a field that
// shares its Go storage with others, whether it maps that storage). An
// object bound by several Go types must be mapped by all of them.
func (b *Binding[T]) Bound(obj *schema.Object, f *schema.Field) bool {
	obs := b.byObj[obj.Name]
	if len(obs) == 0 {
		// An object no Go type binds is either under a collection or
		// object field the binding lacks (reported there), or filled by
		// the evaluator (the user directory's user).
		return obj.Name != b.ctx.Root.Name
	}
	for _, ob := range obs {
		if !ob.goNames[f.GoName] {
			return false
		}
	}
	return true
}

// Query is a query compiled against a Binding: it evaluates on *T.
type Query[T any] struct {
	b *Binding[T]
	q *croql.Query
}

// Compile compiles src in env, whose context must be the binding's, and
// checks that every field the query reads is bound: one that is not is an
// error diagnostic of rule RuleUnbound at its span. On any error it
// returns a nil Query and every diagnostic.
func Compile[T any](env *croql.Env, b *Binding[T], src string) (*Query[T], diag.List) {
	if env == nil || b == nil {
		return nil, diag.List{diag.Errorf(diag.ClassLogic, RuleUnbound, diag.Span{End: len(src)}, "bind: no environment or no binding")}
	}
	if env.Context().Name != b.ctx.Name {
		return nil, diag.List{diag.Errorf(diag.ClassLogic, RuleUnbound, diag.Span{End: len(src)},
			"the binding of %s is for the %s context, the environment's is %s", reflect.TypeFor[T](), b.ctx.Name, env.Context().Name)}
	}
	q, diags := env.Compile(src)
	if q == nil || diags.HasErrors() {
		return nil, diags
	}
	var unbound diag.List
	check := func(obj *schema.Object, f *schema.Field, sp diag.Span) {
		if obj == nil || f == nil || b.Bound(obj, f) {
			return
		}
		unbound = append(unbound, diag.Errorf(diag.ClassLogic, RuleUnbound, sp,
			"`%s` of %s is not bound to a field of %s", f.Name, obj.Name, goTypeFor(b, obj)).
			WithHint("tag the Go field that holds it `%s:%q`", Tag, f.Name))
	}
	typecheck.Inspect(q.Checked().Root, func(n typecheck.Node) {
		switch n := n.(type) {
		case *typecheck.Field:
			check(n.Obj, n.F, n.Sp)
		case *typecheck.Member:
			check(n.X.Type().Obj, n.F, n.Sp)
		}
	})
	if len(unbound) > 0 {
		diags = append(slices.Clip(diags), unbound...)
		diags.Sort()
		return nil, diags
	}
	return &Query[T]{b: b, q: q}, diags
}

// goTypeFor names the Go types that bind obj.
func goTypeFor[T any](b *Binding[T], obj *schema.Object) string {
	var names []string
	for _, ob := range b.byObj[obj.Name] {
		names = append(names, ob.src.String())
	}
	if len(names) == 0 {
		return reflect.TypeFor[T]().String()
	}
	return strings.Join(names, " or ")
}

// Match reports whether the query holds for v. A nil v is not a false:
// it is an error wrapping croql.ErrMisuse, as for croql.Matcher.Match, so
// a nil that reaches Match is seen; the error is nil for any other v.
func (q *Query[T]) Match(v *T) (bool, error) {
	if v == nil {
		return false, fmt.Errorf("%w: a nil %s", croql.ErrMisuse, reflect.TypeFor[*T]())
	}
	return q.match(v), nil
}

// match evaluates the query on a non-nil v.
func (q *Query[T]) match(v *T) bool {
	root := reflect.New(q.b.ctx.Root.GoType)
	q.b.root.fill(reflect.ValueOf(v).Elem(), root.Elem())
	return q.q.Program().Match(root.Interface()) // root is a non-nil *Root
}

// Filter returns the elements of vs the query holds for, in order.
func (q *Query[T]) Filter(vs []T) []T {
	var out []T
	for i := range vs {
		if q.match(&vs[i]) {
			out = append(out, vs[i])
		}
	}
	return out
}

// Query is the compiled query on the schema types.
func (q *Query[T]) Query() *croql.Query { return q.q }
