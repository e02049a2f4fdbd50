package platform_test

import (
	"fmt"
	"strings"

	"github.com/croql/croql/server/platform"
)

// The subscriptions file of `croql serve --subscriptions`: tokens mapped
// to organizations, and one row per organization and app.
func ExampleReadSubscriptions() {
	subs, err := platform.ReadSubscriptions(strings.NewReader(`{
	  "organizations": {"dev-token": "42"},
	  "subscriptions": [
	    {"organization": "42", "app": "my-app", "status": "unpaid",
	     "subscribeLink": "https://pay.example/my-app", "initializedAt": "2026-11-01 00:00:00"}
	  ]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	org := subs.Organization("dev-token")
	row, _ := subs.Get(org, "my-app")
	fmt.Println(org, row.Status, row.InitializedAt)
	// Output: 42 unpaid 2026-11-01 00:00:00
}

// A key-value JSON file: nested objects give dotted keys, an object of
// plural categories is one plural string.
func ExampleJSONParser() {
	strs, err := platform.JSONParser{}.Parse([]byte(`{"menu":{"open":"Open"},"files":{"one":"%d file","other":"%d files"}}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range strs {
		fmt.Println(s.Identifier, s.Text, s.Plural != nil)
	}
	// Output:
	// menu.open Open false
	// files %d files true
}
