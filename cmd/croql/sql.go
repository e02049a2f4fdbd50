package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/croql/croql"
	"github.com/croql/croql/compile"
)

// cmdSQL implements `croql sql`: the WHERE clause a query compiles to in
// one dialect, with its arguments.
func cmdSQL(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("sql", "--dialect postgres|sqlite|mysql [--context C] [--edition E] [--fold] [--format text|json] [QUERY|-]",
		"Compiles the query into a SQL WHERE clause over the reference tables (docs/sql.md) and prints it\n"+
			"with its arguments: every value is a bound parameter. @user mentions are looked up by login in the\n"+
			"users table. Exit 0 on success, 1 when the query has an error, 2 on bad usage.", stderr)
	dialect := fs.String("dialect", "postgres", "SQL dialect: postgres, sqlite or mysql (MariaDB)")
	context := fs.String("context", croql.Strings, "evaluation context: strings, translations, tm, glossary, concepts")
	edition := fs.String("edition", "standard", "platform edition: standard or enterprise")
	fold := fs.Bool("fold", false, "make contains case-insensitive (Unicode simple folding)")
	format := fs.String("format", "text", "output format: text, or json (dialect, from, key, where, select, args)")
	if st := parseFlags(fs, args); st >= 0 {
		return st
	}
	d, err := compile.DialectByName(*dialect)
	if err != nil {
		fmt.Fprintf(stderr, "croql sql: %v\n", err)
		return 2
	}
	ed, ok := parseEdition(*edition)
	if !ok {
		fmt.Fprintf(stderr, "croql sql: --edition must be standard or enterprise, not %q\n", *edition)
		return 2
	}
	if *format != "text" && *format != "json" {
		fmt.Fprintf(stderr, "croql sql: --format must be text or json, not %q\n", *format)
		return 2
	}
	src, err := readQuery(fs.Args(), stdin)
	if err != nil {
		fmt.Fprintf(stderr, "croql sql: %v\n", err)
		return 2
	}
	env, err := croql.NewEnv(*context, croql.WithEdition(ed), croql.WithFoldContains(*fold))
	if err != nil {
		fmt.Fprintf(stderr, "croql sql: %v\n", err)
		return 2
	}
	s, diags := env.SQL(src, d)
	if diags.HasErrors() || s == nil {
		printDiags(stderr, src, diags)
		return 1
	}
	printDiags(stderr, src, diags) // warnings
	if *format == "json" {
		out := struct {
			Dialect string   `json:"dialect"`
			From    string   `json:"from"`
			Key     string   `json:"key"`
			Where   string   `json:"where"`
			Select  string   `json:"select"`
			Args    []sqlArg `json:"args"`
		}{d.Name(), s.From, s.Key, s.Where, s.Select(), sqlArgs(s.Args)}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(out); err != nil {
			fmt.Fprintf(stderr, "croql sql: %v\n", err)
			return 2
		}
		return 0
	}
	fmt.Fprintln(stdout, s.Where)
	for i, a := range sqlArgs(s.Args) {
		fmt.Fprintf(stdout, "-- arg %d (%s): %s\n", i+1, a.Type, a.text())
	}
	return 0
}

// sqlArg is an argument as the CLI prints it.
type sqlArg struct {
	Type  string `json:"type"`
	Value any    `json:"value"`
}

func (a sqlArg) text() string {
	if s, ok := a.Value.(string); ok {
		return strconv.Quote(s)
	}
	return fmt.Sprint(a.Value)
}

func sqlArgs(args []any) []sqlArg {
	out := make([]sqlArg, len(args))
	for i, v := range args {
		t := "?"
		switch v.(type) {
		case int64:
			t = "int"
		case float64:
			t = "float"
		case string:
			t = "string"
		}
		out[i] = sqlArg{Type: t, Value: v}
	}
	return out
}
