// Package eval runs checked CroQL queries on Go objects.
//
// [Compile] turns the checked IR of package typecheck into a [Program]: a
// tree of Go closures, each specialised to one operation on one Go type (an
// int64 comparison with a constant, a substring test on a string field, a
// count of the elements of a slice that a predicate keeps, ...). Field
// accessors are bound once, at compile time: reflection over the context's
// Go types (package schema) computes each field's offset and checks that
// its Go type fits the schema; evaluation then reads memory at that offset
// with the field's Go type. Nothing is boxed in an interface and nothing is
// allocated per evaluated object, and a nullable value travels as a
// (value, present) pair.
//
// Compile runs the core IR (typecheck.CoreOf), in which the language's
// rule table has already been applied (docs/language.md, "The core rules"):
// the evaluator knows no rule of its own. It has two layers. The plain
// closure compiler gives every core node one closure over a frame of scope
// objects. The optimising layer, on by default, replaces some of them with
// faster equivalents: fused test trees for predicates that read only one
// object (fuse.go), comparisons that read a field inline, and loops that
// read a slice field inline. [WithoutOptimizations] turns it off; the tests
// run every query both ways and against the reference interpreter.
//
// A Program is immutable and safe for concurrent use. [Program.Match]
// accepts any value and is false for anything but a pointer to the
// context's root type; [Bind] gives a typed matcher without the type test,
// and [Typed.Func] the program's own compiled function as a func(*T) bool
// for a loop over objects (within 2× of hand-written Go in instructions
// per object on every bench pattern: docs/performance.md, "Instructions per object");
// [Filter] and [FilterParallel] filter slices, keeping their order.
//
// # Binding your own Go types
//
// A catalog's object may have a Go type of the caller's (set the
// schema.Object's GoType; `croql serve` does this for its resident
// snapshot). Each field binds by its GoName to the Go field of that name,
// of the Go type its schema type needs (bool, int64, schema.Time, float64,
// string; a pointer to one for a nullable value; the record's type or a
// pointer to it; a slice of the element's type for a collection), and
// these compact forms are accepted besides:
//
//   - A counted collection: a pointer to the element's Go type T whose
//     struct tag croql:"len=NAME" names a uint32 field of the same struct
//     holding the number of elements (a nil pointer and 0 for none). The
//     elements are an array of T from the pointer on, as a slice's are.
//     It takes 12 bytes where a slice header takes 24, and the counts of a
//     struct's collections can sit side by side. Every collection's
//     length, a slice's included, is read as a uint32 (the low half of a
//     slice's length word), so a slice of 2^32 elements or more is read
//     short.
//   - Bools as bits: a [N]uint8 field tagged croql:"bits=NameA,NameB,..."
//     holds the bools of those GoNames, the i-th name being bit i%8 of
//     byte i/8; the struct has no Go field of those names. 33 bools take
//     5 bytes instead of 33.
//   - A narrow int: a uint32 field holds an int, a datetime (Unix
//     seconds, 1970 to 2106) or a user id that is never absent, in 4
//     bytes instead of 8. Its comparisons run the same fused tests as a
//     collection's count; a nullable value stays an *int64 or
//     *schema.Time (a *uint32 is an error).
//   - A string behind a pointer that is never nil, for a string that is
//     not nullable: 8 bytes where a string takes 16, and the strings that
//     repeat can share one copy. It reads as the string it points to (a
//     nil pointer would read as absent); a comparison with it costs a
//     load more than with a string of its own.
//
// For example, a string with its translations counted and its flags as
// bits:
//
//	type myString struct {
//		Text          string
//		Translations  *myTranslation `croql:"len=NTranslations"`
//		NTranslations uint32
//		Flags         [1]uint8 `croql:"bits=IsHidden,IsDuplicate"`
//	}
//
// A field the type lacks, a Go type that cannot hold the schema type, and
// a malformed tag (a bits tag on anything but a [N]uint8, more names than
// its bits, a name twice or empty or also a Go field of the struct; a len
// tag naming no uint32 field of the struct; a croql tag on a scalar) are
// errors of [Compile] for the queries that read the field. Compiled
// queries run the same instructions on the schema's own types; a bit costs
// a mask per read, and a conjunction of bits of one byte (`is translated
// and not is approved`) is one masked compare.
//
// # Semantics
//
// The rules are those of language.md section 4 (two-valued logic): every
// predicate is true or false, and an absent value ("null": a nil pointer
// field, a member of an absent object) is handled as follows.
//
//	form                        with an absent operand
//	--------------------------  ---------------------------------------------
//	a bool in a predicate       false (so `not P` is true)
//	a = b                       null-safe: absent = absent is true,
//	                            absent = value is false
//	a != b                      not (a = b)
//	a < b, <=, >, >=            false
//	x between lo and hi         false when any of the three is absent
//	s contains t                false; "abc" contains "" is true
//	a + b, a - b, a * b, -a     absent; for ints, also when the exact result
//	                            is outside the int64 range (overflow)
//	a / b                       absent; also when b is 0 (always a float)
//	M of X                      absent when X is absent
//	count of X                  0 when X is absent (or empty)
//	X where P                   empty when X is absent
//	X with P                    false when X is absent; for a collection,
//	                            true when some element satisfies P
//	if C then A else B          B when C is false or absent
//	translation updated (bool)  true when the datetime is set
//
// contains is case-sensitive unless the query was checked with folding
// (typecheck.Config.FoldContains, croql.WithFoldContains): then two runes
// match when they are equal under Unicode simple case folding (the rule of
// strings.EqualFold), tested rune by rune without allocating. = and the
// orderings compare strings by their bytes, which for UTF-8 is code-point
// order. Integer arithmetic is 64-bit and checked. Overflow: integer +, -,
// * and unary - whose exact result leaves the 64-bit range give an absent
// value, like a division by zero, on every engine: the evaluator checks
// each operation, and the SQL computes it exactly and turns a result out
// of range into NULL (package compile, Dialect.IntArith), so no engine
// fails the query or computes in floating point. So `9223372036854775807 +
// 1 > 0` is false and `not (9223372036854775807 + 1 < 0)` true, never a
// wrapped-around value. Float arithmetic follows IEEE 754 (a NaN is unordered
// and equal to nothing).
//
// Users: a user value is an id. `id of U` is that id. `login of U` and
// `U with (P)` look the id up in the user directory given with [WithUserLogins]
// (or [WithUserRefs]); for an id the directory lacks, the login is absent
// and the with is false. A query that reads logins without any directory
// does not compile ([ErrNoUsers]), and neither does one with a @user
// mention the checker could not resolve ([ErrUnresolvedUser]): give the
// checker the directory too (croql.WithUserIDs).
//
// Scopes: where and with bind the element (or object) at the scope number
// the checker assigned; a bare field reads the object bound at its own
// scope, so a field of an outer scope used inside a where predicate reads
// the outer object (`count of translations where (text = identifier) > 0`
// compares each translation's text with the string's identifier).
package eval
