package eval

import (
	"fmt"
	"reflect"
	"unsafe"

	"github.com/croql/croql/schema"
)

// goField is a schema field bound to its Go struct field: where it lives in
// the object and how it is stored. It is computed once, at compile time, by
// reflection; evaluation reads memory at base+off with the Go type that the
// rep names, never through reflect.
type goField struct {
	f   *schema.Field
	off uintptr
	// ptr is true when the Go field is a pointer (*int64, *string, *File):
	// nil is the absent value.
	ptr bool
	rep rep
	// elemSize is the size of one element, for a collection ([]T).
	elemSize uintptr
}

// rep is the Go representation of a scalar.
type rep uint8

const (
	repBool   rep = iota + 1 // bool
	repInt                   // int64 (also schema.Time and user ids)
	repFloat                 // float64
	repString                // string
	repStruct                // a struct (object) or, with ptr, a pointer to one
	repSlice                 // a slice of structs
)

var (
	tBool   = reflect.TypeFor[bool]()
	tInt    = reflect.TypeFor[int64]()
	tTime   = reflect.TypeFor[schema.Time]()
	tFloat  = reflect.TypeFor[float64]()
	tString = reflect.TypeFor[string]()
)

// bindField finds f in the Go type of obj and checks that its Go type fits
// the schema type.
func bindField(obj *schema.Object, f *schema.Field) (goField, error) {
	if obj == nil || obj.GoType == nil || obj.GoType.Kind() != reflect.Struct {
		return goField{}, fmt.Errorf("object of field %q has no Go struct type", f.Name)
	}
	sf, ok := obj.GoType.FieldByName(f.GoName)
	if !ok {
		return goField{}, fmt.Errorf("field %q: %s has no Go field %q", f.Name, obj.GoType, f.GoName)
	}
	// Promoted fields of embedded structs: sum the offsets along the path,
	// refusing embedded pointers (they would need a nil check per hop).
	var off uintptr
	t := obj.GoType
	for _, i := range sf.Index {
		if t.Kind() != reflect.Struct {
			return goField{}, fmt.Errorf("field %q: Go field %q is promoted through a pointer", f.Name, f.GoName)
		}
		x := t.Field(i)
		off += x.Offset
		t = x.Type
	}
	g := goField{f: f, off: off}
	gt := sf.Type
	if gt.Kind() == reflect.Pointer {
		g.ptr = true
		gt = gt.Elem()
	}
	want := func(types ...reflect.Type) error {
		for _, x := range types {
			if gt == x {
				return nil
			}
		}
		return fmt.Errorf("field %q: Go field %s.%s is %s, which cannot hold a %s", f.Name, obj.GoType, f.GoName, sf.Type, f.Type)
	}
	var err error
	{
		switch f.Type.Kind {
		case schema.Bool:
			g.rep, err = repBool, want(tBool)
		case schema.Int, schema.User:
			g.rep, err = repInt, want(tInt)
		case schema.Datetime:
			g.rep, err = repInt, want(tTime, tInt)
		case schema.Float:
			g.rep, err = repFloat, want(tFloat)
		case schema.String, schema.Language:
			g.rep, err = repString, want(tString)
		case schema.Record:
			g.rep = repStruct
			if f.Type.Obj == nil || gt != f.Type.Obj.GoType {
				err = fmt.Errorf("field %q: Go field %s.%s is %s, want %s or a pointer to it", f.Name, obj.GoType, f.GoName, sf.Type, typeName(f.Type.Obj))
			}
		case schema.Collection:
			g.rep = repSlice
			if g.ptr || gt.Kind() != reflect.Slice || f.Type.Obj == nil || gt.Elem() != f.Type.Obj.GoType {
				err = fmt.Errorf("field %q: Go field %s.%s is %s, want []%s", f.Name, obj.GoType, f.GoName, sf.Type, typeName(f.Type.Obj))
			} else {
				g.elemSize = gt.Elem().Size()
			}
		default:
			err = fmt.Errorf("field %q has type %s, which has no Go representation", f.Name, f.Type)
		}
	}
	if err != nil {
		return goField{}, err
	}
	return g, nil
}

func typeName(o *schema.Object) string {
	if o == nil || o.GoType == nil {
		return "<no Go type>"
	}
	return o.GoType.String()
}

// load reads a scalar of Go type T stored at base+off, as (value, present).
func load[T any](base unsafe.Pointer, off uintptr, ptr bool) (T, bool) {
	if ptr {
		p := *(**T)(unsafe.Add(base, off))
		if p == nil {
			var zero T
			return zero, false
		}
		return *p, true
	}
	return *(*T)(unsafe.Add(base, off)), true
}

// sliceAt reads the slice stored at base+off: its first element and length.
// Every slice has the same header whatever its element type.
func sliceAt(base unsafe.Pointer, off uintptr) (unsafe.Pointer, int) {
	s := *(*[]byte)(unsafe.Add(base, off))
	return unsafe.Pointer(unsafe.SliceData(s)), len(s)
}
