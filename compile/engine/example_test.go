package engine_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/croql/croql/compile/engine"
	"github.com/croql/croql/schema"
)

// LoadFile streams a project file into a database: here an in-memory
// SQLite; `croql load --dsn DSN FILE` does the same for any engine.
func ExampleLoadFile() {
	ctx := context.Background()
	db, err := engine.OpenSQLite("")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer db.Close()
	data := `{"kind":"user","id":11,"login":"alice"}
{"kind":"string","id":1,"type":"plain","text":"Pay now","added":"2024-01-01 10:00:00","translations":[{"id":7,"language":"de","text":"Jetzt zahlen","user":11,"added":"2024-01-02 10:00:00","updated":"2024-01-02 10:00:00"}]}
`
	st, err := engine.LoadFile(ctx, db, strings.NewReader(data), schema.ReadOptions{}, nil)
	fmt.Println(st.Objects, "objects,", st.Rows, "rows,", err)
	var text string
	err = db.SQL.QueryRow(`SELECT text FROM translations WHERE id = 7`).Scan(&text)
	fmt.Println(text, err)
	// Output:
	// 1 objects, 4 rows, <nil>
	// Jetzt zahlen <nil>
}
