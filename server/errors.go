package server

import (
	"encoding/json"
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

// WriteJSON writes v as the JSON answer of status: Content-Type
// application/json; charset=utf-8, X-Content-Type-Options nosniff, the
// document and a newline (a 500 of the platform's error shape when v
// cannot be written as JSON). Every JSON answer of croql serve, the
// platform side's routes included, is written here.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"error":{"code":500,"message":"Internal Server Error"}}`)
	}
	writeJSONBytes(w, status, b)
}

// writeJSONBytes writes b, a JSON document, as WriteJSON does.
func writeJSONBytes(w http.ResponseWriter, status int, b []byte) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// WriteError writes the platform's error answer of status:
// {"error":{"code":status,"message":message}}, as WriteJSON writes.
func WriteError(w http.ResponseWriter, status int, message string) {
	writeError(w, &httpError{status: status, message: message})
}

func writeError(w http.ResponseWriter, e *httpError) {
	if e.validation != nil {
		var body ValidationBody
		for _, v := range e.validation {
			body.Errors = append(body.Errors, struct {
				Error ValidationError `json:"error"`
			}{v})
		}
		WriteJSON(w, e.status, body)
		return
	}
	var body ErrorBody
	body.Error.Code, body.Error.Message = e.status, e.message
	if e.status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="croql"`)
	}
	if e.retryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(e.retryAfter))
	}
	WriteJSON(w, e.status, body)
}
