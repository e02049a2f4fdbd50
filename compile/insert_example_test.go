package compile_test

import (
	"fmt"

	"github.com/croql/croql/compile"
)

// InsertSQL writes a multi-row INSERT with one placeholder per value.
func ExampleInsertSQL() {
	fmt.Println(compile.InsertSQL(compile.Postgres{}, "labels", []string{"id", "title"}, 2))
	fmt.Println(compile.InsertSQL(compile.MySQL{}, "labels", []string{"id", "title"}, 2))
	// Output:
	// INSERT INTO "labels" ("id", "title") VALUES ($1, $2), ($3, $4)
	// INSERT INTO `labels` (`id`, `title`) VALUES (?, ?), (?, ?)
}
