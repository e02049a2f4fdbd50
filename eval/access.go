package eval

import (
	"encoding/binary"
	"fmt"
	"reflect"
	"slices"
	"strings"
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
	// nil is the absent value. A collection is never ptr (a nil pointer of
	// a counted collection is the empty collection).
	ptr bool
	rep rep
	// mask, for a bool held as a bit (a bits tag), selects its bit in the
	// byte at off; 0 for a bool of its own.
	mask uint8
	// elemSize is the size of one element, for a collection.
	elemSize uintptr
	// lenOff is where a collection's element count is, a uint32: the low
	// half of a slice's length word, or the count field a len tag names.
	lenOff uintptr
}

// rep is the Go representation of a scalar.
type rep uint8

const (
	repBool   rep = iota + 1 // bool, or a bit of a byte (mask)
	repInt                   // int64 (also schema.Time and user ids)
	repUint32                // a uint32 holding an int, a datetime or a user id (never nullable)
	repFloat                 // float64
	repString                // string
	repStruct                // a struct (object) or, with ptr, a pointer to one
	repSlice                 // a collection: a slice of structs or a counted pointer
)

var (
	tBool   = reflect.TypeFor[bool]()
	tInt    = reflect.TypeFor[int64]()
	tTime   = reflect.TypeFor[schema.Time]()
	tFloat  = reflect.TypeFor[float64]()
	tString = reflect.TypeFor[string]()
	tUint8  = reflect.TypeFor[uint8]()
	tUint32 = reflect.TypeFor[uint32]()
)

// bindField finds f in the Go type of obj and checks that its Go type fits
// the schema type. A bool the struct has no Go field for may be a bit of a
// bits tag (bindBit); a collection may be a counted pointer (bindColl).
func bindField(obj *schema.Object, f *schema.Field) (goField, error) {
	if obj == nil || obj.GoType == nil || obj.GoType.Kind() != reflect.Struct {
		return goField{}, fmt.Errorf("object of field %q has no Go struct type", f.Name)
	}
	sf, ok := obj.GoType.FieldByName(f.GoName)
	if !ok {
		return bindBit(obj, f)
	}
	// Promoted fields of embedded structs: sum the offsets along the path,
	// refusing embedded pointers (they would need a nil check per hop).
	// parent is the struct that declares the field, at parentOff.
	var off, parentOff uintptr
	t, parent := obj.GoType, obj.GoType
	for _, i := range sf.Index {
		if t.Kind() != reflect.Struct {
			return goField{}, fmt.Errorf("field %q: Go field %q is promoted through a pointer", f.Name, f.GoName)
		}
		x := t.Field(i)
		parent, parentOff = t, off
		off += x.Offset
		t = x.Type
	}
	g := goField{f: f, off: off}
	gt := sf.Type
	if gt.Kind() == reflect.Pointer {
		g.ptr = true
		gt = gt.Elem()
	}
	if f.Type.Kind != schema.Collection && sf.Tag.Get("croql") != "" {
		return goField{}, fmt.Errorf("field %q: Go field %s.%s has a croql tag, which only a collection's pointer takes", f.Name, obj.GoType, f.GoName)
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
	switch f.Type.Kind {
	case schema.Bool:
		g.rep, err = repBool, want(tBool)
	case schema.Int, schema.User, schema.Datetime:
		g.rep, err = intRep(f, obj, g.ptr, gt, want)
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
		g, err = bindColl(obj, f, g, sf, parent, parentOff)
	default:
		err = fmt.Errorf("field %q has type %s, which has no Go representation", f.Name, f.Type)
	}
	if err != nil {
		return goField{}, err
	}
	return g, nil
}

// intRep is the representation of an int, a datetime or a user id held
// in a Go field of type gt (the pointer's element when ptr): an int64 (a
// schema.Time for a datetime), or a uint32 that is never absent.
func intRep(f *schema.Field, obj *schema.Object, ptr bool, gt reflect.Type, want func(...reflect.Type) error) (rep, error) {
	switch {
	case gt == tUint32 && ptr:
		return 0, fmt.Errorf("field %q: Go field %s.%s is *uint32; a uint32 holds a value that is never absent (use *int64 for a nullable one)", f.Name, obj.GoType, f.GoName)
	case gt == tUint32:
		return repUint32, nil
	case f.Type.Kind == schema.Datetime:
		return repInt, want(tTime, tInt)
	}
	return repInt, want(tInt)
}

// sliceLenWord is the offset, from a slice header, of the low 32 bits of
// its length word: the word follows the data pointer, and its low half is
// its first 4 bytes on a little-endian machine, its last on a big-endian
// one. A collection's count is read as a uint32 (sliceAt), so a Go slice
// of more than 2^32-1 elements would be read short: no object holds that
// many.
func sliceLenWord() uintptr {
	w := unsafe.Sizeof(uintptr(0))
	if w > 4 && binary.NativeEndian.Uint16([]byte{1, 0}) != 1 {
		return w + w - 4
	}
	return w
}

// bindColl binds collection f to sf, its Go field at g.off in the struct
// parent (at parentOff in obj): a slice of the element's Go type T, or a
// *T whose croql:"len=NAME" tag names the uint32 field of parent that
// holds the number of elements (nil and 0 for none).
func bindColl(obj *schema.Object, f *schema.Field, g goField, sf reflect.StructField, parent reflect.Type, parentOff uintptr) (goField, error) {
	g.rep = repSlice
	if f.Type.Obj == nil || f.Type.Obj.GoType == nil {
		return goField{}, fmt.Errorf("field %q: its element has no Go type", f.Name)
	}
	elem := f.Type.Obj.GoType
	g.elemSize = elem.Size()
	tag := sf.Tag.Get("croql")
	switch {
	case sf.Type == reflect.SliceOf(elem) && tag == "":
		g.lenOff = g.off + sliceLenWord()
		return g, nil
	case sf.Type != reflect.PointerTo(elem):
		return goField{}, fmt.Errorf("field %q: Go field %s.%s is %s, want []%s, or *%s with a croql:\"len=NAME\" tag", f.Name, obj.GoType, f.GoName, sf.Type, elem, elem)
	}
	name, ok := strings.CutPrefix(tag, "len=")
	if !ok || name == "" {
		return goField{}, fmt.Errorf("field %q: Go field %s.%s is %s with the tag croql:%q, want croql:\"len=NAME\" naming its count", f.Name, obj.GoType, f.GoName, sf.Type, tag)
	}
	lf, ok := parent.FieldByName(name)
	switch {
	case !ok || len(lf.Index) != 1:
		return goField{}, fmt.Errorf("field %q: the len tag of %s.%s names %q, which is no field of %s", f.Name, obj.GoType, f.GoName, name, parent)
	case lf.Type != tUint32:
		return goField{}, fmt.Errorf("field %q: the len tag of %s.%s names %s, a %s; the count must be a uint32", f.Name, obj.GoType, f.GoName, name, lf.Type)
	}
	g.ptr, g.lenOff = false, parentOff+lf.Offset
	return g, nil
}

// bindBit binds bool f to a bit of a field of obj's Go type tagged
// croql:"bits=NameA,NameB,...", a [N]uint8 holding those bools as bits:
// the i-th name is bit i%8 of byte i/8. Only the struct's own fields (not
// promoted ones) are searched; a malformed bits tag among them is an error.
func bindBit(obj *schema.Object, f *schema.Field) (goField, error) {
	t := obj.GoType
	for i := range t.NumField() {
		sf := t.Field(i)
		names, err := bitsTag(t, sf)
		if err != nil {
			return goField{}, fmt.Errorf("field %q: %w", f.Name, err)
		}
		j := slices.Index(names, f.GoName)
		if j < 0 {
			continue
		}
		if f.Type.Kind != schema.Bool {
			return goField{}, fmt.Errorf("field %q: the bits tag of %s.%s names it, but it is a %s, not a bool", f.Name, t, sf.Name, f.Type)
		}
		return goField{f: f, rep: repBool, off: sf.Offset + uintptr(j/8), mask: 1 << (j % 8)}, nil
	}
	return goField{}, fmt.Errorf("field %q: %s has no Go field %q (nor a bit of that name)", f.Name, t, f.GoName)
}

// bitsTag returns the names a field's croql:"bits=..." tag lists (none
// for a field without one) and checks them: the field is a [N]uint8 with
// room for them, and each is a distinct name no Go field of t has.
func bitsTag(t reflect.Type, sf reflect.StructField) ([]string, error) {
	tag := sf.Tag.Get("croql")
	list, ok := strings.CutPrefix(tag, "bits=")
	switch {
	case tag == "" || strings.HasPrefix(tag, "len="):
		return nil, nil
	case !ok:
		return nil, fmt.Errorf("%s.%s has the tag croql:%q, neither bits=NAMES nor len=NAME", t, sf.Name, tag)
	case sf.Type.Kind() != reflect.Array || sf.Type.Elem() != tUint8:
		return nil, fmt.Errorf("%s.%s is %s; a bits tag takes a [N]uint8", t, sf.Name, sf.Type)
	}
	names := strings.Split(list, ",")
	if len(names) > 8*sf.Type.Len() {
		return nil, fmt.Errorf("%s.%s names %d bits, more than its %d bytes hold", t, sf.Name, len(names), sf.Type.Len())
	}
	for i, n := range names {
		if n == "" || strings.TrimSpace(n) != n {
			return nil, fmt.Errorf("%s.%s: bit %d of its bits tag has no name (%q)", t, sf.Name, i, n)
		}
		if slices.Contains(names[:i], n) {
			return nil, fmt.Errorf("%s.%s: its bits tag names %s twice", t, sf.Name, n)
		}
		if _, ok := t.FieldByName(n); ok {
			return nil, fmt.Errorf("%s.%s: its bits tag names %s, which is a Go field of %s too", t, sf.Name, n, t)
		}
	}
	return names, nil
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

// sliceAt reads the collection stored at base: its first element (the
// pointer at off: a slice's data pointer or a counted collection's
// pointer) and its length (the uint32 at lenOff: see goField.lenOff).
func sliceAt(base unsafe.Pointer, off, lenOff uintptr) (unsafe.Pointer, int) {
	return *(*unsafe.Pointer)(unsafe.Add(base, off)), int(*(*uint32)(unsafe.Add(base, lenOff)))
}
