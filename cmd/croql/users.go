package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/croql/croql/ast"
	"github.com/croql/croql/parser"
	"github.com/croql/croql/schema"
)

// readUsers reads a user directory for `croql sql --users`: a JSON file
// (an object of logins to ids, an array of {"id", "login"} objects, or a
// project file with such a "users" array), or a text file of one
// `login id` per line (blank lines and lines starting with # skipped; the
// id is the last field, so a login may hold spaces).
func readUsers(path string) (map[string]int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, usageErrorf("--users: %w", err)
	}
	users := map[string]int64{}
	add := func(login string, id int64, where string) error {
		if login == "" {
			return usageErrorf("--users %s: %s: an empty login", path, where)
		}
		if old, ok := users[login]; ok && old != id {
			return usageErrorf("--users %s: %s: login %q has two ids, %d and %d", path, where, login, old, id)
		}
		users[login] = id
		return nil
	}
	t := bytes.TrimSpace(b)
	if len(t) > 0 && (t[0] == '{' || t[0] == '[') {
		var refs []schema.UserRef
		if t[0] == '{' {
			var obj map[string]json.RawMessage
			if err := json.Unmarshal(t, &obj); err != nil {
				return nil, usageErrorf("--users %s: %w", path, err)
			}
			if raw, ok := obj["users"]; ok && len(bytes.TrimSpace(raw)) > 0 && bytes.TrimSpace(raw)[0] == '[' {
				// A project file: its user directory.
				if err := json.Unmarshal(raw, &refs); err != nil {
					return nil, usageErrorf("--users %s: users: %w", path, err)
				}
			} else {
				var m map[string]int64
				if err := json.Unmarshal(t, &m); err != nil {
					return nil, usageErrorf(`--users %s: want {"login": id, ...}, [{"id": 1, "login": "x"}, ...] or a project file: %w`, path, err)
				}
				for login, id := range m {
					if err := add(login, id, "login "+strconv.Quote(login)); err != nil {
						return nil, err
					}
				}
				return users, nil
			}
		} else if err := json.Unmarshal(t, &refs); err != nil {
			return nil, usageErrorf(`--users %s: want [{"id": 1, "login": "x"}, ...]: %w`, path, err)
		}
		for i, u := range refs {
			if err := add(u.Login, u.ID, fmt.Sprintf("user %d", i+1)); err != nil {
				return nil, err
			}
		}
		return users, nil
	}
	for i, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cut := strings.LastIndexAny(line, " \t")
		var id int64
		if cut > 0 {
			id, err = strconv.ParseInt(line[cut+1:], 10, 64)
		}
		if cut <= 0 || err != nil {
			return nil, usageErrorf("--users %s:%d: want `login id`, got %q", path, i+1, line)
		}
		if err := add(strings.TrimSpace(line[:cut]), id, "line "+strconv.Itoa(i+1)); err != nil {
			return nil, err
		}
	}
	return users, nil
}

// userMentions counts the @user mentions of src (0 when it does not
// parse: the compiler reports that).
func userMentions(src string) int {
	e, diags := parser.Parse(src)
	if e == nil || diags.HasErrors() {
		return 0
	}
	n := 0
	ast.Inspect(e, func(x ast.Expr) bool {
		if m, ok := x.(*ast.Mention); ok && m.Kind == "user" {
			n++
		}
		return true
	})
	return n
}
