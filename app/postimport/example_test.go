package postimport_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/croql/croql/app/postimport"
)

func ExampleNewHandler() {
	// The app's function: prefix every plain source text.
	proc := postimport.ProcessorFunc(func(ctx context.Context, job *postimport.Job) ([]postimport.String, error) {
		for i := range job.Strings {
			if !job.Strings[i].HasPlurals {
				job.Strings[i].Text.Plain = "[" + job.File.Name + "] " + job.Strings[i].Text.Plain
			}
		}
		return job.Strings, nil
	})
	h, err := postimport.NewHandler(proc, postimport.Config{})
	if err != nil {
		fmt.Println(err)
		return
	}
	mux := http.NewServeMux()
	mux.Handle("POST /post-import", h)

	job := `{"jobType":"file-post-import","file":{"name":"a.json","content":"e30="},
	  "sourceLanguage":{"id":"en","pluralCategoryNames":["one","other"]},"targetLanguages":[],
	  "strings":[{"uniqId":"h::1","identifier":"hello","text":"Hello","customField":{"keep":true}}]}`
	w := httptest.NewRecorder()
	mux.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/post-import", strings.NewReader(job)))
	fmt.Println(w.Code, w.Body.String())
	// Output: 200 {"data":{"strings":[{"uniqId":"h::1","identifier":"hello","text":"[a.json] Hello","customField":{"keep":true}}]}}
}

func ExampleString_Clone() {
	var s postimport.String
	_ = json.Unmarshal([]byte(`{"uniqId":"h::1","identifier":"faq","text":"Q? A.","labels":["help"],"meta":7}`), &s)

	// Split into question and answer; each part keeps the other members.
	q, a := s.Clone(), s.Clone()
	q.UniqID, q.Identifier, q.Text = "h::1.1", "faq.q", postimport.PlainText("Q?")
	a.UniqID, a.Identifier, a.Text = "h::1.2", "faq.a", postimport.PlainText("A.")
	for _, part := range []postimport.String{q, a} {
		b, _ := json.Marshal(part)
		fmt.Println(string(b))
	}
	// Output:
	// {"uniqId":"h::1.1","identifier":"faq.q","text":"Q?","labels":["help"],"meta":7}
	// {"uniqId":"h::1.2","identifier":"faq.a","text":"A.","labels":["help"],"meta":7}
}

func ExampleText() {
	var t postimport.Text
	_ = json.Unmarshal([]byte(`{"other":"%d files","one":"%d file"}`), &t)
	fmt.Println(t.IsPlural(), t.Plural["one"])
	b, _ := json.Marshal(postimport.PluralText(map[string]string{"other": "n", "few": "f", "one": "1"}))
	fmt.Println(string(b))
	// Output:
	// true %d file
	// {"one":"1","few":"f","other":"n"}
}

func ExampleSelect() {
	modules := []postimport.Module{
		{Key: "android", URL: "/post-import/android", SignaturePatterns: &postimport.SignaturePatterns{
			FileName: `\.xml$`, FileContent: `<resources`}},
		{Key: "fallback", URL: "/post-import/any"},
	}
	for _, f := range []struct{ name, content string }{
		{"values/strings.xml", `<?xml version="1.0"?><resources>`},
		{"web/en.json", `{}`},
	} {
		m, _, _ := postimport.Select(modules, f.name, []byte(f.content))
		fmt.Println(f.name, "->", m.Key)
	}
	// Output:
	// values/strings.xml -> android
	// web/en.json -> fallback
}

func ExampleValidate() {
	job := &postimport.Job{
		SourceLanguage:  postimport.Language{ID: "en", PluralCategoryNames: []string{"one", "other"}},
		TargetLanguages: []postimport.Language{{ID: "pl", PluralCategoryNames: []string{"one", "few", "many", "other"}}},
	}
	s := postimport.String{
		UniqID: "h::1", Identifier: "files", HasPlurals: true,
		Text: postimport.PluralText(map[string]string{"one": "%d file", "other": "%d files"}),
		Translations: map[string]postimport.Translation{
			"pl": {Text: postimport.PluralText(map[string]string{"one": "%d plik", "two": "%d pliki"})},
		},
	}
	fmt.Println(postimport.Validate(job, []postimport.String{s}))
	// Output: 1 problem(s) in the strings: string 1 (uniqId "h::1"): translations["pl"].text has plural forms [two] that language "pl" does not have (its categories: [one few many other])
}

func ExampleCheckJob() {
	// The platform's documentation sends a plural source text with keys
	// that differ from the source language's categories: a warning, not a
	// failure, and the string passes through unchanged.
	var job postimport.Job
	_ = json.Unmarshal([]byte(`{"jobType":"post-import-file",
	  "sourceLanguage":{"id":"es","pluralCategoryNames":["one"]},
	  "strings":[{"uniqId":"h::2","identifier":"files","hasPlurals":true,"text":{"one":"One file","other":"%d files"}}]}`), &job)
	fmt.Println(postimport.CheckJob(&job))
	fmt.Println(postimport.Validate(&job, job.Strings))
	// Output:
	// 1 problem(s) in the strings: string 1 (uniqId "h::2"): text has plural forms [one other] but the source language "es" has categories [one]
	// <nil>
}
