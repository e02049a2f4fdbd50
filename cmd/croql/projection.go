package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/croql/croql"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/typecheck"
)

// queryOutput is how `croql query` prints a matching object: its id
// (--ids), the members named by --fields, or the whole object.
type queryOutput struct {
	ids    bool
	fields *projection // nil: whole objects
}

// projection writes the chosen members of the objects of one context, as
// JSON objects with those members in the order given (--fields).
type projection struct {
	names []string // JSON member names, in output order
	index [][]int  // reflect field index of each
}

// contextTypes are the Go types of the objects each context prints.
var contextTypes = map[string]reflect.Type{
	croql.Strings:      reflect.TypeFor[schema.SourceString](),
	croql.Translations: reflect.TypeFor[schema.Translation](),
	croql.TM:           reflect.TypeFor[schema.TMSegment](),
	croql.Glossary:     reflect.TypeFor[schema.GlossaryTerm](),
	croql.Concepts:     reflect.TypeFor[schema.GlossaryConcept](),
}

// jsonMembers returns the JSON member names of the struct type t, in
// declaration order, with the field index of each.
func jsonMembers(t reflect.Type) (names []string, index map[string][]int) {
	index = map[string][]int{}
	for _, f := range reflect.VisibleFields(t) {
		if !f.IsExported() || f.Anonymous {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		names = append(names, name)
		index[name] = f.Index
	}
	return names, index
}

// newProjection resolves the --fields of the context ctxName: JSON member
// names of its objects (docs/data-format.md), compared as CroQL compares
// field names (case and spaces aside, so "max length" is maxLength). An
// unknown name is a usage error with the nearest names.
func newProjection(ctxName string, fields []string) (*projection, error) {
	t, ok := contextTypes[ctxName]
	if !ok {
		return nil, usageErrorf("--fields: unknown context %q", ctxName)
	}
	names, index := jsonMembers(t)
	byKey := make(map[string]string, len(names))
	for _, n := range names {
		byKey[schema.NormalKey(n)] = n
	}
	p := &projection{}
	seen := map[string]bool{}
	for _, f := range fields {
		f = strings.TrimSpace(f)
		if f == "" {
			return nil, usageErrorf("--fields: an empty name (give member names separated by commas, such as id,identifier,text)")
		}
		name, ok := byKey[schema.NormalKey(f)]
		if !ok {
			msg := fmt.Sprintf("--fields: %q is not a member of the objects of the %s context", f, ctxName)
			if s := typecheck.NewNames(names).Closest(f, 3); len(s) > 0 {
				msg += "; did you mean " + strings.Join(s, " or ") + "?"
			}
			return nil, usageErrorf("%s (members: %s)", msg, strings.Join(names, ", "))
		}
		if seen[name] {
			continue
		}
		seen[name] = true
		p.names = append(p.names, name)
		p.index = append(p.index, index[name])
	}
	return p, nil
}

// appendJSON appends to buf the projection of o, a pointer to an object of
// the projection's context, as one line of JSON.
func (p *projection) appendJSON(buf []byte, o any) ([]byte, error) {
	v := reflect.ValueOf(o)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return buf, fmt.Errorf("--fields: cannot project a %T", o)
	}
	v = v.Elem()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	buf = append(buf, '{')
	for i, name := range p.names {
		if i > 0 {
			buf = append(buf, ',')
		}
		b.Reset()
		if err := enc.Encode(name); err != nil {
			return buf, err
		}
		buf = append(buf, bytes.TrimSuffix(b.Bytes(), []byte{'\n'})...)
		buf = append(buf, ':')
		b.Reset()
		if err := enc.Encode(v.FieldByIndex(p.index[i]).Interface()); err != nil {
			return buf, fmt.Errorf("writing %s: %w", name, err)
		}
		buf = append(buf, bytes.TrimSuffix(b.Bytes(), []byte{'\n'})...)
	}
	return append(buf, '}', '\n'), nil
}
