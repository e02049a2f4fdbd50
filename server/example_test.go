package server_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"

	"github.com/croql/croql/schema"
	"github.com/croql/croql/server"
)

// ExampleNew serves a project from embedded SQLite and asks for the
// hidden strings with translations, two per page.
func ExampleNew() {
	f, _ := os.Open("../testdata/demo/project.json")
	p, _ := schema.ReadProject(f)
	f.Close()
	st, _ := server.LoadSQLite(context.Background(), "", p) // a temporary directory
	defer st.Close()
	toks := &server.Tokens{}
	_ = toks.Add("secret")
	srv, _ := server.New(server.Config{Storage: st, Tokens: toks})
	hs := httptest.NewServer(srv)
	defer hs.Close()

	q := url.Values{"croql": {"is hidden and count of translations > 0"}, "limit": {"2"}, "orderBy": {"identifier"}}
	req, _ := http.NewRequest(http.MethodGet, hs.URL+"/api/v2/projects/1/strings?"+q.Encode(), nil)
	req.Header.Set("Authorization", "Bearer secret")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Println(resp.StatusCode)
	fmt.Printf("%.120s\n", body)
	// Output:
	// 200
	// {"data":[{"data":{"branchId":3,"context":"Text inside a search field, greyed out","createdAt":"2023-11-04T18:01:18+00:00
}

// ExampleServer_FileObject reads a project's file in the platform's File
// shape, as the upload routes answer it.
func ExampleServer_FileObject() {
	f, _ := os.Open("../testdata/demo/project.json")
	p, _ := schema.ReadProject(f)
	f.Close()
	st, _ := server.LoadSQLite(context.Background(), "", p)
	defer st.Close()
	toks := &server.Tokens{}
	_ = toks.Add("secret")
	srv, _ := server.New(server.Config{Storage: st, Tokens: toks})
	proj, _ := st.Project(1)
	file, err := srv.FileObject(context.Background(), proj, 3)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(file["name"], file["type"], file["path"], file["status"])
	// Output:
	// strings.xml android /strings.xml active
}

// Tokens may be added and removed while a server runs (croql serve's
// token endpoint issues tokens, uninstalling an app revokes them).
func ExampleTokens_Remove() {
	tokens := &server.Tokens{}
	_ = tokens.Add("issued")
	_ = tokens.Add("admin")
	fmt.Println(tokens.Len(), tokens.Remove("issued"), tokens.Remove("issued"), tokens.Len())
	// Output: 2 true false 1
}
