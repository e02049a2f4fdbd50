package platform_test

import (
	"fmt"
	"strings"

	"github.com/croql/croql/locfile"
	"github.com/croql/croql/server/platform"
)

// A FileParser reads a format of package locfile as an upload: here an
// iOS .stringsdict whose plural keeps every form.
func ExampleFileParser() {
	p := platform.FileParser{P: locfile.StringsDict{}}
	fmt.Println(p.Type(), p.Match("en.lproj/Localizable.stringsdict", nil))
	got, err := p.Parse([]byte(`<plist version="1.0"><dict>
<key>days</key><dict><key>NSStringLocalizedFormatKey</key><string>%#@d@</string>
<key>d</key><dict><key>NSStringFormatSpecTypeKey</key><string>NSStringPluralRuleType</string>
<key>one</key><string>%d day</string><key>other</key><string>%d days</string></dict></dict></dict></plist>`))
	fmt.Println(got[0].Identifier, got[0].Plural, err)
	// Output:
	// stringsdict true
	// days map[one:%d day other:%d days] <nil>
}

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

// A key-value JSON file, read as croql query --data reads it: nested
// objects give dotted keys, an object of plural categories is one plural
// string.
func ExampleFileParser_json() {
	strs, err := platform.FileParser{P: locfile.JSON{}}.Parse([]byte(`{"menu":{"open":"Open"},"files":{"one":"%d file","other":"%d files"}}`))
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
