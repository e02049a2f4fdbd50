package client_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"

	"github.com/croql/croql/client"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/server"
)

// Example calls croql serve (here in-process, over loopback) with the
// client: a query with an error is reported with a caret before anything
// is sent.
func Example() {
	f, _ := os.Open("../../testdata/demo/project.json")
	p, _ := schema.ReadProject(f)
	f.Close()
	st, _ := server.LoadSQLite(context.Background(), "", p)
	defer st.Close()
	toks := &server.Tokens{}
	_ = toks.Add("secret")
	srv, _ := server.New(server.Config{Storage: st, Tokens: toks})
	hs := httptest.NewServer(srv)
	defer hs.Close()

	c, _ := client.New(hs.URL, "secret")
	strs, err := c.Strings(context.Background(), 1, `is hidden and count of translations > 0`)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(strs), "hidden strings with translations; the first:", strs[0].Identifier)

	_, err = c.Strings(context.Background(), 1, `is hiden`)
	var qe *client.QueryError
	if errors.As(err, &qe) {
		fmt.Print(qe.Format())
	}
	// Output:
	// 4 hidden strings with translations; the first: account.login.title
	// 1:1: error: `is hiden` is not a field of a source string; did you mean `is hidden`? [croqlInvalidLogic/unknown-field]
	//   is hiden
	//   ^^^^^^^^
	//   did you mean: is hidden
}
