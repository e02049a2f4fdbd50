package corpus

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Good are the cases of all that check (warnings allowed): the ones with
// a query, past the parse stage, and no error diagnostic. The golden SQL
// files hold exactly these.
func Good(all []Case) []Case {
	var out []Case
	for _, c := range all {
		if c.Get("stage") == "parse" || c.Query() == "" || HasErrorDiag(c) {
			continue
		}
		out = append(out, c)
	}
	return out
}

// HasErrorDiag reports whether c expects a diagnostic that is not a
// warning.
func HasErrorDiag(c Case) bool {
	for _, d := range c.All("diag") {
		if !strings.HasPrefix(d, "warning/") {
			return true
		}
	}
	return false
}

// Golden is one case of a golden SQL file (testdata/sql/<dialect>/):
// the case's name, its WHERE text and its arguments, and the statement
// that counts what the WHERE selects from the elements' side with its
// arguments, when the compiler writes one (compile.SQL.Count).
type Golden struct {
	Name      string
	Where     string
	Args      []Arg
	Count     string
	CountArgs []Arg
}

// Arg keeps an SQL argument's Go type through JSON.
type Arg struct {
	Int    *int64   `json:"int,omitempty"`
	Float  *float64 `json:"float,omitempty"`
	String *string  `json:"string,omitempty"`
}

// Args are args (int64, float64 or string each) as Args.
func Args(args []any) ([]Arg, error) {
	out := make([]Arg, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case int64:
			out[i].Int = &v
		case float64:
			out[i].Float = &v
		case string:
			out[i].String = &v
		default:
			return nil, fmt.Errorf("argument %d is %T", i, a)
		}
	}
	return out, nil
}

// Values are args as the Go values they hold.
func Values(args []Arg) []any {
	out := make([]any, len(args))
	for i, a := range args {
		switch {
		case a.Int != nil:
			out[i] = *a.Int
		case a.Float != nil:
			out[i] = *a.Float
		case a.String != nil:
			out[i] = *a.String
		}
	}
	return out
}

// ReadGolden reads a golden SQL file.
func ReadGolden(path string) ([]Golden, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("missing golden file (go test ./compile -run TestGolden -update writes it): %w", err)
	}
	cases, err := Parse(filepath.Base(path), string(data))
	if err != nil {
		return nil, err
	}
	out := make([]Golden, 0, len(cases))
	for _, c := range cases {
		var args []Arg
		if err := json.Unmarshal([]byte(c.Get("args")), &args); err != nil {
			return nil, fmt.Errorf("%s: args: %w", c.Where(), err)
		}
		g := Golden{Name: c.Name, Where: c.Get("where"), Args: args, Count: c.Get("count")}
		if g.Count != "" {
			if err := json.Unmarshal([]byte(c.Get("countArgs")), &g.CountArgs); err != nil {
				return nil, fmt.Errorf("%s: countArgs: %w", c.Where(), err)
			}
		}
		out = append(out, g)
	}
	return out, nil
}
