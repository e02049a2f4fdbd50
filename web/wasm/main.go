//go:build js && wasm

// Command wasm is croql for the browser playground, built with
// GOOS=js GOARCH=wasm (web/build.sh). Run by Go's wasm_exec.js, it sets a
// global object `croql` whose functions take the query text, the options
// ({context, edition}) and, where it matters, a UTF-16 offset, and return
// JSON text (the shapes of package web/playground):
//
//	croql.analyze(src, opts)          diagnostics, formatted, sql[], evaluation
//	croql.lint(src, opts)             diagnostics with ranges and fixes
//	croql.format(src, opts)           {text, ok, error}
//	croql.sql(src, opts, dialect)     {dialect, where, select, args, error}
//	croql.evaluate(src, opts, limit)  {count, total, matches, error}
//	croql.complete(src, opts, offset) {items: [{label, kind, from, to, insert, ...}]}
//	croql.hover(src, opts, offset)    {found, from, to, kind, name, type, markdown, ...}
//	croql.tokens(src, opts)           [{from, to, kind}]
//	croql.why(src, opts, id)          {text, explanation, error}
//	croql.diff(old, new, opts, limit) {countOld, countNew, both, onlyOld, onlyNew, ...}
//
// Offsets count UTF-16 code units, as JavaScript strings do.
//
// The queries run on the demo project (demo.Default, the same project as
// testdata/demo/project.json). When the functions are set, it calls the
// global function croqlReady, if there is one, and then waits forever.
package main

import (
	"encoding/json"
	"fmt"
	"syscall/js"

	"github.com/croql/croql/web/playground"
)

func main() {
	pg := playground.Demo()
	api := js.Global().Get("Object").New()
	def := func(name string, f func(args []js.Value) any) {
		api.Set(name, js.FuncOf(func(_ js.Value, args []js.Value) (result any) {
			defer func() {
				// A panic would end the Go program and every later call
				// with it: report it as the call's error instead.
				if r := recover(); r != nil {
					result = encode(map[string]string{"error": fmt.Sprintf("croql: internal error in %s: %v", name, r)})
				}
			}()
			return encode(f(args))
		}))
	}
	def("analyze", func(a []js.Value) any { return pg.Analyze(str(a, 0), opts(a, 1)) })
	def("lint", func(a []js.Value) any { return pg.Lint(str(a, 0), opts(a, 1)) })
	def("format", func(a []js.Value) any { return pg.Format(str(a, 0), opts(a, 1)) })
	def("sql", func(a []js.Value) any { return pg.SQL(str(a, 0), opts(a, 1), str(a, 2)) })
	def("evaluate", func(a []js.Value) any { return pg.Evaluate(str(a, 0), opts(a, 1), num(a, 2)) })
	def("complete", func(a []js.Value) any { return pg.Complete(str(a, 0), opts(a, 1), num(a, 2)) })
	def("hover", func(a []js.Value) any { return pg.Hover(str(a, 0), opts(a, 1), num(a, 2)) })
	def("tokens", func(a []js.Value) any { return pg.Tokens(str(a, 0), opts(a, 1)) })
	def("why", func(a []js.Value) any { return pg.Why(str(a, 0), opts(a, 1), int64(num(a, 2))) })
	def("diff", func(a []js.Value) any { return pg.Diff(str(a, 0), str(a, 1), opts(a, 2), num(a, 3)) })
	api.Set("dialects", encode(playground.Dialects))
	js.Global().Set("croql", api)
	if ready := js.Global().Get("croqlReady"); ready.Type() == js.TypeFunction {
		ready.Invoke()
	}
	select {}
}

func encode(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(map[string]string{"error": err.Error()})
	}
	return string(b)
}

func arg(a []js.Value, i int) js.Value {
	if i < len(a) {
		return a[i]
	}
	return js.Undefined()
}

func str(a []js.Value, i int) string {
	if v := arg(a, i); v.Type() == js.TypeString {
		return v.String()
	}
	return ""
}

func num(a []js.Value, i int) int {
	if v := arg(a, i); v.Type() == js.TypeNumber {
		return v.Int()
	}
	return 0
}

func opts(a []js.Value, i int) playground.Options {
	v := arg(a, i)
	if v.Type() != js.TypeObject {
		return playground.Options{}
	}
	field := func(name string) string {
		if f := v.Get(name); f.Type() == js.TypeString {
			return f.String()
		}
		return ""
	}
	return playground.Options{Context: field("context"), Edition: field("edition")}
}
