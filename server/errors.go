package server

import (
	"net/http"
	"strconv"

	"github.com/croql/croql/diag"
)

// The response shapes of errors, as the platform's API writes them.
//
// A validation error (400) lists, per request parameter (key), what is
// wrong with it:
//
//	{"errors":[{"error":{"key":"croql","errors":[{"code":"croqlInvalidSyntax","message":"…"}]}}]}
//
// Other errors carry the status and a message:
//
//	{"error":{"code":404,"message":"Project Not Found"}}

// FieldError is one problem with a request parameter. For key "croql" it
// is a diagnostic: Code is croqlInvalidSyntax or croqlInvalidLogic and the
// rest locates it in the query (an extension: the platform sends code and
// message only).
type FieldError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	// Rule is croql's specific rule (double-equals, unknown-field, ...).
	Rule string `json:"rule,omitempty"`
	// Span is the byte range of the query the diagnostic is about.
	Span *diag.Span `json:"span,omitempty"`
	// Line and Column (1-based, columns in runes) locate Span's start.
	Line   int    `json:"line,omitempty"`
	Column int    `json:"column,omitempty"`
	Hint   string `json:"hint,omitempty"`
	// Fixes are suggested replacements ("did you mean").
	Fixes []diag.Fix `json:"fixes,omitempty"`
	// Fit, on a pageTooLarge error of limit, is how many objects of the
	// page fit the server's page budget: the limit to ask for.
	Fit int `json:"fit,omitempty"`
}

// ValidationError is the errors of one parameter.
type ValidationError struct {
	Key    string       `json:"key"`
	Errors []FieldError `json:"errors"`
}

// ValidationBody is the body of a 400 answer.
type ValidationBody struct {
	Errors []struct {
		Error ValidationError `json:"error"`
	} `json:"errors"`
}

// ErrorBody is the body of the other error answers.
type ErrorBody struct {
	Error struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// httpError is an answer that is not a page.
type httpError struct {
	status int
	// validation, when set, is the body of a 400.
	validation []ValidationError
	message    string
	// refused: a sharded engine refused the query's statement; the
	// request's plan is chosen again with the coordinator's keys
	// (Server.answer).
	refused bool
	// retryAfter, when positive, is the Retry-After header's seconds.
	retryAfter int
}

func (e *httpError) Error() string { return strconv.Itoa(e.status) + " " + e.message }

func invalid(key, code, format string) *httpError {
	return &httpError{status: http.StatusBadRequest, message: format,
		validation: []ValidationError{{Key: key, Errors: []FieldError{{Code: code, Message: format}}}}}
}

func notFound(what string) *httpError {
	return &httpError{status: http.StatusNotFound, message: what + " Not Found"}
}

// croqlError is the 400 of a query with errors: every error diagnostic,
// located.
func croqlError(src string, diags diag.List) *httpError {
	ve := ValidationError{Key: "croql"}
	s := diag.NewSource(src)
	for _, d := range diags.Errors() {
		pos := s.Position(d.Span.Start)
		span := d.Span
		ve.Errors = append(ve.Errors, FieldError{Code: d.Code, Message: d.Message, Rule: d.Rule, Span: &span,
			Line: pos.Line, Column: pos.Column, Hint: d.Hint, Fixes: d.Fixes})
	}
	return &httpError{status: http.StatusBadRequest, message: "invalid croql", validation: []ValidationError{ve}}
}
