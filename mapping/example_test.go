package mapping_test

import (
	"fmt"

	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
)

// A service that names its strings table differently changes the default
// mapping; the layout lists the physical columns the compiler, the DDL and
// the loader then use.
func ExampleDefault() {
	m := mapping.Default(schema.New())
	strs := m.Tables["source string"]
	strs.Name = "app_strings"
	strs.Columns["text"] = "body"
	if err := m.Check(); err != nil {
		fmt.Println(err)
		return
	}
	l, err := m.Layout()
	if err != nil {
		fmt.Println(err)
		return
	}
	t := l.Of(strs)
	fmt.Println(t.Table.Name, t.PKey, t.Columns[0].Name, t.ShardColumn())
	for _, c := range t.Columns {
		if c.GoName == "Text" {
			fmt.Println("text is stored in", c.Name)
		}
	}
	// Output:
	// app_strings [id] id id
	// text is stored in body
}
