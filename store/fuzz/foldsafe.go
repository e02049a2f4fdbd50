package fuzz

import (
	"reflect"

	"github.com/croql/croql/compile"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/typecheck"
)

// LowerFoldSafe reports whether every string that a case-insensitive
// `contains` of q can see in p passes compile.LowerFoldSafe: the literals
// under its operands, and the values in p of every field read under them.
//
// PostgreSQL and MariaDB fold with lower(), which disagrees with the
// language's simple case folding on a few runes (ſ, İ, final sigma, ...;
// docs/sql.md), a documented difference; the properties compare those
// engines on a folded contains only when this holds.
func LowerFoldSafe(q *typecheck.Query, p *schema.Project) bool {
	fields := map[reflect.Type]map[string]bool{} // Go type -> Go field names
	safe := true
	var visit func(n typecheck.Node, seen bool)
	visit = func(n typecheck.Node, seen bool) {
		if c, ok := n.(*typecheck.Contains); ok && c.Fold {
			seen = true
		}
		if seen {
			switch n := n.(type) {
			case *typecheck.Const:
				if !compile.LowerFoldSafe(n.S) {
					safe = false
				}
			case *typecheck.Field:
				note(fields, n.Obj, n.F)
			case *typecheck.Member:
				note(fields, n.X.Type().Obj, n.F)
			}
		}
		for _, k := range typecheck.Operands(n) {
			visit(k, seen)
		}
	}
	visit(q.Root, false)
	if !safe {
		return false
	}
	if len(fields) == 0 {
		return true
	}
	return stringsSafe(reflect.ValueOf(p).Elem(), fields)
}

func note(fields map[reflect.Type]map[string]bool, obj *schema.Object, f *schema.Field) {
	if obj == nil || obj.GoType == nil || f.GoName == "" {
		return
	}
	if fields[obj.GoType] == nil {
		fields[obj.GoType] = map[string]bool{}
	}
	fields[obj.GoType][f.GoName] = true
}

// stringsSafe walks v and reports whether every string held in a noted
// field of a struct of a noted type passes compile.LowerFoldSafe.
func stringsSafe(v reflect.Value, fields map[reflect.Type]map[string]bool) bool {
	switch v.Kind() {
	case reflect.Pointer:
		return v.IsNil() || stringsSafe(v.Elem(), fields)
	case reflect.Slice:
		for i := range v.Len() {
			if !stringsSafe(v.Index(i), fields) {
				return false
			}
		}
	case reflect.Struct:
		names := fields[v.Type()]
		for i := range v.NumField() {
			f := v.Field(i)
			if names[v.Type().Field(i).Name] {
				if s, ok := text(f); ok && !compile.LowerFoldSafe(s) {
					return false
				}
			}
			if !stringsSafe(f, fields) {
				return false
			}
		}
	}
	return true
}

// text reads a string or a non-nil *string.
func text(v reflect.Value) (string, bool) {
	switch {
	case v.Kind() == reflect.String:
		return v.String(), true
	case v.Kind() == reflect.Pointer && !v.IsNil() && v.Elem().Kind() == reflect.String:
		return v.Elem().String(), true
	}
	return "", false
}
