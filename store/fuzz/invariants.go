package fuzz

import (
	"errors"
	"fmt"
	"runtime/debug"
	"time"
	"unicode/utf8"

	"github.com/croql/croql/ast"
	"github.com/croql/croql/diag"
)

// The invariants every fuzz target checks, as functions returning an error
// that describes the first violation.

// DiagnosticsOK checks the diagnostics of src: every span, and every fix's
// span, lies inside src with Start <= End; each has a code, a rule and a
// message (valid UTF-8 when src is); they are sorted by position; and each
// can be shown with its source line.
func DiagnosticsOK(src string, l diag.List) error {
	inside := func(sp diag.Span) bool { return 0 <= sp.Start && sp.Start <= sp.End && sp.End <= len(src) }
	source := diag.NewSource(src)
	for i, d := range l {
		if !inside(d.Span) {
			return fmt.Errorf("%q: diagnostic %v has span %v outside [0, %d]", src, d, d.Span, len(src))
		}
		for _, fx := range d.Fixes {
			if !inside(fx.Span) {
				return fmt.Errorf("%q: diagnostic %v has a fix at %v outside [0, %d]", src, d, fx.Span, len(src))
			}
		}
		if d.Rule == "" || d.Code == "" || d.Message == "" {
			return fmt.Errorf("%q: diagnostic without rule, code or message: %#v", src, d)
		}
		if !utf8.ValidString(d.Message) && utf8.ValidString(src) {
			return fmt.Errorf("%q: message is not UTF-8: %q", src, d.Message)
		}
		if i > 0 && l[i-1].Span.Start > d.Span.Start {
			return fmt.Errorf("%q: diagnostics not sorted by position: %v", src, l)
		}
		_ = source.Format(d) // must not panic
	}
	return nil
}

// SpansOK checks that every node of root has a non-empty span inside its
// parent's, and the root's inside src.
func SpansOK(src string, root ast.Expr) error {
	var walk func(e ast.Expr, lo, hi int) error
	walk = func(e ast.Expr, lo, hi int) error {
		sp := e.Span()
		if sp.Start < lo || sp.End > hi || sp.Start >= sp.End {
			return fmt.Errorf("%q: span %v of %s outside its parent [%d, %d)", src, sp, ast.SExpr(e), lo, hi)
		}
		for _, c := range ast.Children(e) {
			if err := walk(c, sp.Start, sp.End); err != nil {
				return err
			}
		}
		return nil
	}
	return walk(root, 0, len(src))
}

// HangAfter is how long one fuzz input may take in one stage before it
// counts as a hang. Parsing, checking and evaluating take microseconds;
// the limit is generous for a loaded machine.
const HangAfter = 5 * time.Second

// ErrHang is returned by Within for a call that does not return in time.
var ErrHang = errors.New("did not return in time: a hang")

// Within runs f and returns ErrHang when it has not returned after d. The
// call keeps running in its goroutine then; the caller is expected to fail.
// A panic in f is raised again in the caller, with f's stack in its value.
func Within(d time.Duration, f func()) error {
	done := make(chan struct{})
	var crash any
	go func() {
		defer func() {
			if r := recover(); r != nil {
				crash = fmt.Sprintf("%v\n%s", r, debug.Stack())
			}
			close(done)
		}()
		f()
	}()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
		if crash != nil {
			panic(crash)
		}
		return nil
	case <-t.C:
		return fmt.Errorf("after %v: %w", d, ErrHang)
	}
}
