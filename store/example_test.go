package store_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"

	"github.com/croql/croql"
	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/store"
)

// LoadFile streams a project file into a database: here an in-memory
// SQLite; `croql load --dsn DSN FILE` does the same for any store.
func ExampleLoadFile() {
	ctx := context.Background()
	db, err := store.OpenSQLite("")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer db.Close()
	data := `{"kind":"user","id":11,"login":"alice"}
{"kind":"string","id":1,"type":"plain","text":"Pay now","added":"2024-01-01 10:00:00","translations":[{"id":7,"language":"de","text":"Jetzt zahlen","user":11,"added":"2024-01-02 10:00:00","updated":"2024-01-02 10:00:00"}]}
`
	st, err := store.LoadFile(ctx, db, strings.NewReader(data), schema.ReadOptions{}, nil)
	fmt.Println(st.Objects, "objects,", st.Rows, "rows,", err)
	var text string
	err = db.SQL.QueryRow(`SELECT text FROM translations WHERE id = 7`).Scan(&text)
	fmt.Println(text, err)
	// Output:
	// 1 objects, 4 rows, <nil>
	// Jetzt zahlen <nil>
}

// EngineOfDSN is how every croql command tells the engine of a DSN.
func ExampleEngineOfDSN() {
	for _, dsn := range []string{
		"postgres://postgres@127.0.0.1:5432/test?sslmode=disable",
		"mysql://root@127.0.0.1:3306/test",
		"root@tcp(127.0.0.1:3306)/test",
		"/var/lib/croql/project.db",
	} {
		fmt.Println(store.EngineOfDSN(dsn))
	}
	// Output:
	// postgres
	// mysql
	// mysql
	// sqlite
}

// A load into a target of OpenTarget records itself as complete, which
// store.CheckLoaded reads before a store is served; a load that fails
// leaves the target as it was.
func ExampleOpenTarget() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "croql-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	dsn := "file:" + filepath.Join(dir, "p.db")
	db, err := store.OpenTarget(ctx, "sqlite", dsn, "")
	if err != nil {
		fmt.Println(err)
		return
	}
	bad := `{"kind":"string","id":1,"type":"plain","text":"a","added":"2024-01-01"}
{"kind":"string","id":1,"type":"plain","text":"b","added":"2024-01-01"}
`
	_, err = store.LoadFile(ctx, db, strings.NewReader(bad), schema.ReadOptions{}, nil)
	fmt.Println("load:", err != nil, "complete:", store.CheckLoaded(ctx, db.SQL, db.Dialect) == nil)
	good := `{"kind":"string","id":1,"type":"plain","text":"a","added":"2024-01-01"}
`
	st, err := store.LoadFile(ctx, db, strings.NewReader(good), schema.ReadOptions{}, nil)
	fmt.Println("retry:", err, st.Objects, "complete:", store.CheckLoaded(ctx, db.SQL, db.Dialect) == nil)
	fmt.Println(db.Close())
	// Output:
	// load: true complete: false
	// retry: <nil> 1 complete: true
	// <nil>
}

// Classify names the class of a database error: a server that cannot be
// reached is Unavailable (croql serve answers 503).
func ExampleClassify() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println(err)
		return
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	_, err = store.OpenDSN(context.Background(), "postgres://postgres@"+addr+"/test?sslmode=disable")
	class, _ := store.Classify(err)
	fmt.Println(class)
	// Output: unavailable
}

// ReadObjects reads objects back from a database into the Go types the
// evaluator runs on: here a string with its translation and its vote.
func ExampleLoadFile_readObjects() {
	ctx := context.Background()
	db, err := store.OpenSQLite("")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer db.Close()
	data := `{"kind":"user","id":11,"login":"alice"}
{"kind":"string","id":1,"type":"plain","text":"Pay now","added":"2024-01-01 10:00:00","translations":[{"id":7,"language":"de","text":"Jetzt zahlen","user":11,"added":"2024-01-02 10:00:00","updated":"2024-01-02 10:00:00","votes":[{"mark":"up","user":11,"added":"2024-01-03 10:00:00"}]}]}
`
	if _, err := store.LoadFile(ctx, db, strings.NewReader(data), schema.ReadOptions{}, nil); err != nil {
		fmt.Println(err)
		return
	}
	cat := schema.New()
	c, _ := cat.Context("strings")
	objs, err := store.ReadObjects(ctx, db.SQL, db.Dialect, mapping.Default(cat), c, []int64{1, 2}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, o := range objs {
		s := o.(*schema.SourceString)
		tr := s.Translations[0]
		fmt.Println(s.ID, s.Text, "/", tr.Language, tr.Text, "/", tr.Votes[0].Mark, "by", tr.Votes[0].User)
	}
	// Output:
	// 1 Pay now / de Jetzt zahlen / up by 11
}

// Coordinate answers a query as croql's coordinator does on Vitess for
// the forms vtgate refuses: the candidates the query's own-column
// conditions select, read back and matched by the evaluator. It runs on
// any engine; here two counts compared with each other on SQLite.
func ExampleOpen_coordinate() {
	ctx := context.Background()
	db, err := store.OpenSQLite("")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer db.Close()
	data := `{"kind":"user","id":11,"login":"alice"}
{"kind":"string","id":1,"type":"plain","text":"Pay now","added":"2024-01-01 10:00:00","translations":[{"id":7,"language":"de","text":"Jetzt zahlen","user":11,"added":"2024-01-02 10:00:00","updated":"2024-01-02 10:00:00","votes":[{"mark":"up","user":11,"added":"2024-01-03 10:00:00"}]}]}
{"kind":"string","id":2,"type":"plain","text":"Cancel","added":"2024-01-01 10:00:00","translations":[{"id":8,"language":"de","text":"Abbrechen","user":11,"added":"2024-01-02 10:00:00","updated":"2024-01-02 10:00:00","votes":[{"mark":"down","user":11,"added":"2024-01-03 10:00:00"}]}]}
`
	if _, err := store.LoadFile(ctx, db, strings.NewReader(data), schema.ReadOptions{}, nil); err != nil {
		fmt.Println(err)
		return
	}
	env, err := croql.NewEnv(croql.Strings)
	if err != nil {
		fmt.Println(err)
		return
	}
	q, diags := env.Check(`type is plain and translations with (count of votes where (is up) > count of votes where (is down))`)
	if diags.HasErrors() {
		fmt.Println(diags)
		return
	}
	ids, err := store.Coordinate(ctx, db.SQL, db.Dialect, mapping.Default(env.Catalog()), q, 0)
	fmt.Println(ids, err)
	// Output: [1] <nil>
}

// A load records the project itself (its name, languages and users):
// ReadProject reads it back, as croql serve --dsn does to serve the
// project as the file it was loaded from. A store without the record
// reads as nil.
func ExampleReadProject() {
	ctx := context.Background()
	db, err := store.OpenSQLite("")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer db.Close()
	data := `{"kind":"project","name":"Shop","sourceLanguageId":"en","targetLanguageIds":["de"]}
{"kind":"user","id":11,"login":"alice"}
{"kind":"string","id":1,"type":"plain","text":"Pay now","added":"2024-01-01 10:00:00"}
`
	if _, err := store.LoadFile(ctx, db, strings.NewReader(data), schema.ReadOptions{}, nil); err != nil {
		fmt.Println(err)
		return
	}
	p, err := store.ReadProject(ctx, db.SQL, db.Dialect)
	fmt.Println(p.Name, p.SourceLanguage, p.TargetLanguages, err)
	if _, err := db.SQL.Exec(`DROP TABLE ` + mapping.ProjectTable); err != nil {
		fmt.Println(err)
		return
	}
	p, err = store.ReadProject(ctx, db.SQL, db.Dialect)
	fmt.Println(p, err)
	// Output:
	// Shop en [de] <nil>
	// <nil> <nil>
}
