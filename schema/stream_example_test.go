package schema_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/croql/croql/schema"
)

// Stream hands the objects over while it reads, in file order; the head
// (users, languages, files, branches) comes first.
func ExampleStream() {
	data := `{"kind":"user","id":11,"login":"alice"}
{"kind":"string","id":1,"type":"plain","text":"Pay now","added":"2024-01-01 10:00:00"}
{"kind":"string","id":2,"type":"plain","text":"Cancel","added":"2024-01-02 10:00:00"}
`
	err := schema.Stream(context.Background(), strings.NewReader(data), schema.ReadOptions{}, schema.Handler{
		Head: func(p *schema.Project) (func(*schema.Item) error, error) {
			fmt.Println("users:", p.UserIDs())
			return nil, nil
		},
		Emit: func(items []*schema.Item) error {
			for _, it := range items {
				s := it.Value.(*schema.SourceString)
				fmt.Printf("line %d: string %d %q\n", it.Line, s.ID, s.Text)
			}
			return nil
		},
	})
	fmt.Println(err)
	// Output:
	// users: map[alice:11]
	// line 2: string 1 "Pay now"
	// line 3: string 2 "Cancel"
	// <nil>
}

// Strict mode rejects members the format does not define; every error
// names its line.
func ExampleReadProjectWith() {
	data := `{"kind":"string","id":1,"type":"plain","isHiden":true,"added":"2024-01-01"}`
	_, err := schema.ReadProjectWith(strings.NewReader(data), schema.ReadOptions{Strict: true})
	fmt.Println(err)
	_, err = schema.ReadProject(strings.NewReader(data + "\n" + data))
	fmt.Println(err)
	// Output:
	// reading project: line 1: string: json: unknown field "isHiden"
	// reading project: line 2: string 1: the id is taken by an earlier string
}
