package store

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/compile"
	"github.com/croql/croql/demo"
	"github.com/croql/croql/internal/testdb"
	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
)

// readEngines are the engines the read tests run on: every engine testdb
// lists, and Vitess when CROQL_VITESS_DSN is set (ReadObjects' statements
// are the plain key and foreign-key IN lists vtgate routes).
func readEngines(t *testing.T) []string {
	t.Helper()
	engines := testdb.Engines(t)
	if testdb.DSN("vitess") != "" {
		engines = append(engines, "vitess")
	} else {
		t.Logf("vitess not tested: set %s (e.g. %s)", testdb.EnvVitess, testdb.ExampleDSN("vitess"))
	}
	return engines
}

// openRead opens a scratch database of eng and loads p into it with m.
func openRead(t *testing.T, eng string, m *mapping.Mapping, p *schema.Project) *DB {
	t.Helper()
	ctx := context.Background()
	db, err := Open(ctx, eng, testdb.DSN(eng))
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, db.Close()) })
	require.NoError(t, LoadSQL(ctx, db.SQL, db.Dialect, m, p, db.LoadOptions()...))
	return db
}

// renamedMapping is the default mapping with other names for tables,
// columns, foreign keys and a join table: ReadObjects follows the
// mapping, not the default names.
func renamedMapping(cat *schema.Catalog) *mapping.Mapping {
	m := mapping.Default(cat)
	s := m.Tables["source string"]
	s.Name = "app_strings"
	s.Key = "sid"
	s.Columns["text"] = "body"
	s.Columns["file"] = "file_ref"
	s.Children["comments"].FK = "owner_sid"
	s.Children["labels"] = &mapping.Child{Through: "app_string_tags", From: "owner", To: "tag"}
	s.Children["translations"].From = "owner"
	m.Tables["translation"].Name = "app_translations"
	m.Tables["translation"].Columns["text"] = "body"
	m.Tables["translation"].Stored["Added"] = "created"
	m.Tables["label"].Name = "tags"
	m.Tables["vote"].Name = "app_votes"
	m.Tables["TM record"].Stored["Language"] = "lang"
	m.Tables["file"].Columns["name"] = "file_name"
	return m
}

// TestReadObjects loads the demo project (default mapping) and the small
// fixture (nulls, empty and absent values; through a renamed mapping) on
// every engine, reads every context's objects back and compares them
// with the originals after normalise: the database keeps only what the
// mapping has a column for. A subset of ids (with a repeat and keys
// without a row) reads the same objects, in key order, also when every
// statement may bind only two keys.
func TestReadObjects(t *testing.T) {
	fixture := readFixture(t, "small")
	for _, eng := range readEngines(t) {
		t.Run(eng, func(t *testing.T) {
			cat := schema.New()
			for _, tc := range []struct {
				name string
				m    *mapping.Mapping
				p    *schema.Project
			}{
				{"demo", mapping.Default(cat), demo.Default()},
				{"small renamed", renamedMapping(cat), fixture},
			} {
				db := openRead(t, eng, tc.m, tc.p)
				for _, c := range cat.Contexts {
					want := expected(tc.m, c, tc.p, nil)
					got, err := ReadObjects(context.Background(), db.SQL, db.Dialect, tc.m, c, nil, nil)
					require.NoError(t, err, "%s %s", tc.name, c.Name)
					require.NotEmpty(t, want, "%s %s", tc.name, c.Name)
					sameObjects(t, want, got, "%s %s, every id", tc.name, c.Name)

					// Every third id, a repeat, and ids without a row.
					var ids []int64
					var sub []any
					for i, o := range want {
						if i%3 == 0 {
							id, _ := schema.ObjectID(o)
							ids = append(ids, id)
							sub = append(sub, o)
						}
					}
					ids = append([]int64{-5, 1 << 40}, ids...)
					ids = append(ids, ids[2])
					slices.Reverse(ids)
					got, err = ReadObjects(context.Background(), db.SQL, db.Dialect, tc.m, c, ids, nil)
					require.NoError(t, err)
					sameObjects(t, sub, got, "%s %s, ids %v", tc.name, c.Name, ids)
					got, err = ReadObjects(context.Background(), db.SQL, twoParams{db.Dialect}, tc.m, c, ids, nil)
					require.NoError(t, err)
					sameObjects(t, sub, got, "%s %s, ids %v two per statement", tc.name, c.Name, ids)
					t.Logf("%s %s: %d objects, %d by id", tc.name, c.Name, len(want), len(sub))
				}
				got, err := ReadObjects(context.Background(), db.SQL, db.Dialect, tc.m, cat.Contexts[0], []int64{}, nil)
				require.NoError(t, err)
				assert.Empty(t, got, "no ids, no objects")
			}
		})
	}
}

// TestReadObjectsWant: collections that want leaves out stay empty, the
// element's too (a string's translations without their votes), and
// every other field is read.
func TestReadObjectsWant(t *testing.T) {
	for _, eng := range readEngines(t) {
		t.Run(eng, func(t *testing.T) {
			cat := schema.New()
			m := mapping.Default(cat)
			p := demo.Default()
			db := openRead(t, eng, m, p)
			c, _ := cat.Context(schema.CtxStrings)
			only := func(obj *schema.Object, f *schema.Field) bool {
				return obj == c.Root && (f.Name == "translations" || f.Name == "labels")
			}
			got, err := ReadObjects(context.Background(), db.SQL, db.Dialect, m, c, nil, only)
			require.NoError(t, err)
			sameObjects(t, expected(m, c, p, only), got, "strings with translations and labels only")
			translations, labels := 0, 0
			for _, o := range got {
				s := o.(*schema.SourceString)
				assert.Nil(t, s.Comments)
				assert.Nil(t, s.LanguagesSummary)
				for _, tr := range s.Translations {
					assert.Nil(t, tr.Votes)
					assert.Nil(t, tr.Approvals)
				}
				translations += len(s.Translations)
				labels += len(s.Labels)
			}
			assert.Positive(t, translations)
			assert.Positive(t, labels)

			none := func(*schema.Object, *schema.Field) bool { return false }
			first := expected(m, c, p, none)[:1]
			id, _ := schema.ObjectID(first[0])
			got, err = ReadObjects(context.Background(), db.SQL, db.Dialect, m, c, []int64{id}, none)
			require.NoError(t, err)
			sameObjects(t, first, got, "no collection")
			assert.NotEmpty(t, got[0].(*schema.SourceString).Text)
		})
	}
}

// TestReadUsers: the user directory reads back in id order.
func TestReadUsers(t *testing.T) {
	for _, eng := range readEngines(t) {
		t.Run(eng, func(t *testing.T) {
			cat := schema.New()
			m := mapping.Default(cat)
			p := demo.Default()
			db := openRead(t, eng, m, p)
			got, err := ReadUsers(context.Background(), db.SQL, db.Dialect, m)
			require.NoError(t, err)
			want := slices.SortedFunc(slices.Values(p.Users), func(a, b schema.UserRef) int { return cmp.Compare(a.ID, b.ID) })
			require.NotEmpty(t, want)
			assert.Equal(t, want, got)
		})
	}
}

// TestReadObjectsErrors: a broken row is an error naming its table, not
// a panic or a silent zero; a cancelled context stops the read.
func TestReadObjectsErrors(t *testing.T) {
	cat := schema.New()
	m := mapping.Default(cat)
	p := demo.Default()
	db := openRead(t, "sqlite", m, p)
	c, _ := cat.Context(schema.CtxStrings)
	ctx := context.Background()

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	_, err := ReadObjects(cancelled, db.SQL, db.Dialect, m, c, nil, nil)
	require.ErrorIs(t, err, context.Canceled)

	_, err = db.SQL.ExecContext(ctx, `UPDATE strings SET file_id = 999999 WHERE id = ?`, p.Strings[0].ID)
	require.NoError(t, err)
	_, err = ReadObjects(ctx, db.SQL, db.Dialect, m, c, []int64{p.Strings[0].ID}, nil)
	require.ErrorContains(t, err, "reading strings: column file_id refers to key 999999 of files, which has no row")

	_, err = db.SQL.ExecContext(ctx, `UPDATE strings SET max_length = 'long' WHERE id = ?`, p.Strings[1].ID)
	require.NoError(t, err)
	_, err = ReadObjects(ctx, db.SQL, db.Dialect, m, c, []int64{p.Strings[1].ID}, nil)
	require.ErrorContains(t, err, "reading strings: column max_length")

	_, err = db.SQL.ExecContext(ctx, `INSERT INTO string_labels (string_id, label_id) VALUES (?, 424242)`, p.Strings[2].ID)
	require.NoError(t, err)
	_, err = ReadObjects(ctx, db.SQL, db.Dialect, m, c, []int64{p.Strings[2].ID}, nil)
	require.ErrorContains(t, err, "reading string_labels: string_id")
}

// TestReadObjectsOrdinal: the elements of a foreign-key collection come
// in the order of their OrdinalColumn, not in the order of the rows.
func TestReadObjectsOrdinal(t *testing.T) {
	cat := schema.New()
	m := mapping.Default(cat)
	p := demo.Default()
	db := openRead(t, "sqlite", m, p)
	c, _ := cat.Context(schema.CtxStrings)
	i := slices.IndexFunc(p.Strings, func(s schema.SourceString) bool { return len(s.LanguagesSummary) >= 3 })
	require.GreaterOrEqual(t, i, 0)
	s := p.Strings[i]
	_, err := db.SQL.ExecContext(context.Background(), `UPDATE languages_summary SET ordinal = -1 - ordinal WHERE string_id = ?`, s.ID)
	require.NoError(t, err)
	got, err := ReadObjects(context.Background(), db.SQL, db.Dialect, m, c, []int64{s.ID}, nil)
	require.NoError(t, err)
	require.Len(t, got, 1)
	want := slices.Clone(s.LanguagesSummary)
	slices.Reverse(want)
	assert.Equal(t, want, got[0].(*schema.SourceString).LanguagesSummary)
}

// twoParams is a dialect that binds at most two parameters a statement.
type twoParams struct{ compile.Dialect }

func (twoParams) MaxParams() int { return 2 }

func readFixture(t *testing.T, name string) *schema.Project {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "testdata", "fixtures", name+".json"))
	require.NoError(t, err)
	defer f.Close()
	p, err := schema.ReadProject(f)
	require.NoError(t, err)
	return p
}

// sameObjects compares objects one by one, so that a failure shows one
// object, not the whole list.
func sameObjects(t *testing.T, want, got []any, msg string, args ...any) {
	t.Helper()
	what := fmt.Sprintf(msg, args...)
	require.Len(t, got, len(want), what)
	for i := range want {
		if !assert.Equal(t, want[i], got[i], "%s: object %d", what, i) {
			return
		}
	}
}

// expected is what ReadObjects returns for context c of p, every object in
// key order and normalised: the database does not keep
//
//   - Go fields without a column: a comment's ID, Text and Added, a
//     translation's StringID (a translation is stored once, and the
//     translations of a duplicate are its master's);
//   - the difference between a nil and an empty collection (read as nil);
//   - the order of the elements of a join-table collection (labels,
//     translations), which read in key order;
//
// and collections that want leaves out are empty.
func expected(m *mapping.Mapping, c *schema.Context, p *schema.Project, want func(*schema.Object, *schema.Field) bool) []any {
	n := normaliser{m: m, want: want, kept: keptFields(m)}
	objs := p.Objects(c)
	out := make([]any, len(objs))
	for i, o := range objs {
		v := reflect.ValueOf(o).Elem()
		ptr := reflect.New(v.Type())
		ptr.Elem().Set(n.object(v, c.Root))
		out[i] = ptr.Interface()
	}
	slices.SortFunc(out, func(a, b any) int {
		x, _ := schema.ObjectID(a)
		y, _ := schema.ObjectID(b)
		return cmp.Compare(x, y)
	})
	return out
}

// keptFields are, per Go type, the Go fields with a column (or a
// collection) in m: the fields of every object of that type, the key's
// ID, and the Stored fields.
func keptFields(m *mapping.Mapping) map[reflect.Type]map[string]bool {
	cat := m.Catalog()
	objs := slices.Clone(cat.Objects)
	for _, c := range cat.Contexts {
		objs = append(objs, c.Root)
	}
	out := map[reflect.Type]map[string]bool{}
	for _, o := range objs {
		set := out[o.GoType]
		if set == nil {
			set = map[string]bool{}
			out[o.GoType] = set
		}
		t := m.Tables[o.Name]
		if t.Key != "" {
			set["ID"] = true
		}
		for goName := range t.Stored {
			set[goName] = true
		}
		for _, f := range o.Fields {
			set[f.GoName] = true
		}
	}
	return out
}

type normaliser struct {
	m    *mapping.Mapping
	want func(*schema.Object, *schema.Field) bool
	kept map[reflect.Type]map[string]bool
}

// object returns a normalised copy of v, a value of o.
func (n normaliser) object(v reflect.Value, o *schema.Object) reflect.Value {
	out := reflect.New(v.Type()).Elem()
	kept := n.kept[v.Type()]
	for i := range v.NumField() {
		name := v.Type().Field(i).Name
		if !kept[name] {
			continue
		}
		fv := v.Field(i)
		var f *schema.Field
		for _, x := range o.Fields {
			if x.GoName == name && (x.Type.Kind == schema.Collection || x.Type.Kind == schema.Record) {
				f = x
			}
		}
		switch {
		case f == nil:
			out.Field(i).Set(fv)
		case f.Type.Kind == schema.Record:
			if !fv.IsNil() {
				p := reflect.New(fv.Type().Elem())
				p.Elem().Set(n.object(fv.Elem(), f.Type.Obj))
				out.Field(i).Set(p)
			}
		case fv.Len() > 0 && (n.want == nil || n.want(o, f)):
			s := reflect.MakeSlice(fv.Type(), fv.Len(), fv.Len())
			for j := range fv.Len() {
				s.Index(j).Set(n.object(fv.Index(j), f.Type.Obj))
			}
			if n.m.Tables[o.Name].Children[f.Name].Through != "" {
				elems := make([]reflect.Value, s.Len())
				for j := range elems {
					elems[j] = reflect.ValueOf(s.Index(j).Interface())
				}
				slices.SortStableFunc(elems, func(a, b reflect.Value) int {
					return cmp.Compare(a.FieldByName("ID").Int(), b.FieldByName("ID").Int())
				})
				for j, e := range elems {
					s.Index(j).Set(e)
				}
			}
			out.Field(i).Set(s)
		}
	}
	return out
}
