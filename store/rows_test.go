package store_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/croql/croql/compile"
	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/store"
)

// Rows writes and reads single rows of a catalog object through the
// mapping: here the strings of a file, in an in-memory SQLite whose tables
// LoadSQL created empty.
func ExampleRowsOf() {
	if err := writeAndReadStrings(context.Background()); err != nil {
		fmt.Println(err)
	}
	// Output:
	// 1 k0 Pay now 3 true
	// 2 k1 Cancel 3 true
}

func writeAndReadStrings(ctx context.Context) error {
	db, err := store.OpenSQLite("")
	if err != nil {
		return err
	}
	defer db.Close()
	m := mapping.Default(schema.New())
	if err := store.LoadSQL(ctx, db.SQL, db.Dialect, m, &schema.Project{}); err != nil {
		return err
	}
	strs, err := store.RowsOf[schema.SourceString](db.Dialect, m)
	if err != nil {
		return err
	}
	// Two rows in one INSERT: the values of each row in strs.Columns' order.
	file := &schema.File{ID: 3, Name: "app.json", Type: "json"}
	var args []any
	for i, text := range []string{"Pay now", "Cancel"} {
		s := schema.SourceString{ID: int64(i + 1), Type: "plain", Text: text, Identifier: fmt.Sprint("k", i), File: file, Added: 1700000000}
		if args, err = strs.Values(args, &s, store.Owner{}); err != nil {
			return err
		}
	}
	if _, err := db.SQL.ExecContext(ctx, strs.InsertSQL(2), args...); err != nil {
		return err
	}
	// The file's strings, by the column of the Go field File.
	fileCol, err := strs.Column(func(s *schema.SourceString) any { return &s.File })
	if err != nil {
		return err
	}
	rows, err := db.SQL.QueryContext(ctx, strs.SelectSQL(fileCol, 1, strs.Key()), file.ID)
	if err != nil {
		return err
	}
	defer rows.Close()
	dest, raw := strs.Dest()
	for rows.Next() {
		var s schema.SourceString
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		if _, err := strs.Decode(raw, &s); err != nil {
			return err
		}
		fmt.Println(s.ID, s.Identifier, s.Text, s.File.ID, s.Updated == nil)
	}
	return rows.Err()
}

func TestRowsElementTable(t *testing.T) {
	ctx := context.Background()
	db, err := store.OpenSQLite("")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	m := mapping.Default(schema.New())
	// The tables, empty.
	if err := store.LoadSQL(ctx, db.SQL, db.Dialect, m, &schema.Project{}); err != nil {
		t.Fatal(err)
	}
	sum, err := store.RowsOf[schema.LanguageSummary](db.Dialect, m)
	if err != nil {
		t.Fatal(err)
	}
	if sum.OwnerColumn() == "" || sum.Key() != "" {
		t.Fatalf("summary owner %q key %q", sum.OwnerColumn(), sum.Key())
	}
	var args []any
	for i, l := range []string{"de", "fr"} {
		e := schema.LanguageSummary{Language: l, IsTranslated: i == 0, ApprovalsCount: int64(i + 4)}
		if args, err = sum.Values(args, &e, store.Owner{Key: 9, Ordinal: int64(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.SQL.ExecContext(ctx, sum.InsertSQL(2), args...); err != nil {
		t.Fatal(err)
	}
	// An update of two fields of the owner's elements.
	approved, err := sum.Column(func(e *schema.LanguageSummary) any { return &e.IsApproved })
	if err != nil {
		t.Fatal(err)
	}
	count, err := sum.Column(func(e *schema.LanguageSummary) any { return &e.ApprovalsCount })
	if err != nil {
		t.Fatal(err)
	}
	upd, err := sum.Subset(approved, count)
	if err != nil {
		t.Fatal(err)
	}
	vals, err := upd.Values(nil, &schema.LanguageSummary{IsApproved: true, ApprovalsCount: 7}, store.Owner{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.SQL.ExecContext(ctx, upd.UpdateSQL(sum.OwnerColumn(), 2), append(vals, int64(9), int64(10))...); err != nil {
		t.Fatal(err)
	}
	lang, err := sum.Column(func(e *schema.LanguageSummary) any { return &e.Language })
	if err != nil {
		t.Fatal(err)
	}
	rd, err := sum.Subset(sum.OwnerColumn(), mapping.OrdinalColumn, lang, approved, count)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := db.SQL.QueryContext(ctx, rd.SelectSQL(sum.OwnerColumn(), 1, mapping.OrdinalColumn), int64(9))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	dest, raw := rd.Dest()
	var got []string
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			t.Fatal(err)
		}
		var e schema.LanguageSummary
		o, err := rd.Decode(raw, &e)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%d %d %s %t %d %t", o.Key, o.Ordinal, e.Language, e.IsApproved, e.ApprovalsCount, e.IsTranslated))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	// IsTranslated was not selected: it stays false in the decoded value.
	want := "9 0 de true 7 false|9 1 fr true 7 false"
	if s := strings.Join(got, "|"); s != want {
		t.Fatalf("read %s, want %s", s, want)
	}
	if _, err := db.SQL.ExecContext(ctx, sum.DeleteSQL(sum.OwnerColumn(), 1), int64(9)); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.SQL.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+db.Dialect.Quote(sum.Table())).Scan(&n); err != nil || n != 0 {
		t.Fatalf("after the delete: %d rows, %v", n, err)
	}
}

func TestRowsErrors(t *testing.T) {
	m := mapping.Default(schema.New())
	d := compile.SQLite{}
	if _, err := store.RowsOf[struct{ ID int64 }](d, m); err == nil {
		t.Fatal("a type outside the catalog got a codec")
	}
	strs, err := store.RowsOf[schema.SourceString](d, m)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := strs.Column(func(s *schema.SourceString) any { return &s.Comments }); err == nil {
		t.Fatal("a collection field got a column")
	}
	if _, err := strs.Column(func(s *schema.SourceString) any { return s.ID }); err == nil {
		t.Fatal("a field given by value got a column")
	}
	if c, err := strs.Column(func(s *schema.SourceString) any { return &s.ID }); err != nil || c != strs.Key() {
		t.Fatalf("the column of ID is %q (%v), want the key %q", c, err, strs.Key())
	}
	if _, err := strs.Subset("no such column"); err == nil {
		t.Fatal("a subset of an unknown column")
	}
	if _, err := strs.Decode([]any{int64(1)}, &schema.SourceString{}); err == nil {
		t.Fatal("a short row decoded")
	}
	pg, err := store.RowsOf[schema.SourceString](compile.Postgres{}, m)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pg.Values(nil, &schema.SourceString{Text: "a\x00b"}, store.Owner{}); err == nil {
		t.Fatal("a NUL byte in a string value was accepted for PostgreSQL")
	}
	if got := d.ByteLength(d.Quote("text")); got != `length(CAST("text" AS BLOB))` {
		t.Fatalf("ByteLength = %s", got)
	}
	got := store.UpdateSQL(d, "t", []string{"a", "b"}, "k", 2)
	if want := `UPDATE "t" SET "a" = ?, "b" = ? WHERE "k" IN (?, ?)`; got != want {
		t.Fatalf("UpdateSQL = %s, want %s", got, want)
	}
}
