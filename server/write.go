package server

// The writers of every answer: JSON documents, the platform's error
// shapes, and a list's page within its byte budget.

import (
	"encoding/json"

	"fmt"
	gojson "github.com/goccy/go-json"
	"net/http"
	"strconv"
)

// WriteJSON writes v as the JSON answer of status: Content-Type
// application/json; charset=utf-8, X-Content-Type-Options nosniff, the
// document and a newline (a 500 of the platform's error shape when v
// cannot be written as JSON). Every JSON answer of croql serve, the
// platform side's routes included, is written here.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	status, b := encodeJSON(status, v)
	writeJSONBytes(w, status, b)
}

// encodeJSON is v as WriteJSON writes it, and the status it answers.
func encodeJSON(status int, v any) (int, []byte) {
	b, err := json.Marshal(v)
	if err != nil {
		return http.StatusInternalServerError, []byte(`{"error":{"code":500,"message":"Internal Server Error"}}`)
	}
	return status, b
}

// writeJSONBytes writes b, a JSON document, as WriteJSON does: the
// document, then a newline (b is not copied to append it).
func writeJSONBytes(w http.ResponseWriter, status int, b []byte) {
	document{b}.write(w, status)
}

// WriteError writes the platform's error answer of status:
// {"error":{"code":status,"message":message}}, as WriteJSON writes.
func WriteError(w http.ResponseWriter, status int, message string) {
	writeError(w, &httpError{status: status, message: message})
}

func writeError(w http.ResponseWriter, e *httpError) {
	if e.status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="croql"`)
	}
	if e.retryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(e.retryAfter))
	}
	status, b := encodeError(e)
	writeJSONBytes(w, status, b)
}

// encodeError is the document of e (without its headers: writeError
// sets those), and its status.
func encodeError(e *httpError) (int, []byte) {
	if e.validation != nil {
		var body ValidationBody
		for _, v := range e.validation {
			body.Errors = append(body.Errors, struct {
				Error ValidationError `json:"error"`
			}{v})
		}
		return encodeJSON(e.status, body)
	}
	var body ErrorBody
	body.Error.Code, body.Error.Message = e.status, e.message
	return encodeJSON(e.status, body)
}

// writeBody writes a handler's answer. A list answer larger than
// Config.MaxPageBytes is refused whole (a 400 under the key limit that
// says how many of its objects fit) rather than cut short: the
// platform's clients read a page shorter than its limit as the last one.
func (s *Server) writeBody(w http.ResponseWriter, body any) {
	status, doc := s.encodeBody(body)
	doc.write(w, status)
}

// document is a JSON answer in parts, written one after the other: a
// list's objects encoded one at a time, never joined into one buffer.
type document [][]byte

// write writes d as writeJSONBytes writes a document.
func (d document) write(w http.ResponseWriter, status int) {
	n := 1
	for _, p := range d {
		n += len(p)
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Content-Length", strconv.Itoa(n))
	w.WriteHeader(status)
	for _, p := range d {
		if _, err := w.Write(p); err != nil {
			return
		}
	}
	_, _ = w.Write(newline)
}

var (
	newline   = []byte("\n")
	comma     = []byte(",")
	dataOpen  = []byte(`{"data":[`)
	dataClose = []byte(`],"pagination":`)
)

// encodeBody is the JSON document writeBody writes for body, and its
// status: a list answer over the byte budget is the 400 that says how
// many of its objects fit, a body that cannot be written as JSON the
// 500 WriteJSON writes. A list is encoded once, an object at a time,
// counting the bytes as they will be sent, and stops at the first object
// past the budget: an answer refused for its size costs no more than
// the budget.
func (s *Server) encodeBody(body any) (int, document) {
	lr, ok := body.(listResponse)
	if !ok {
		status, b := encodeJSON(http.StatusOK, body)
		return status, document{b}
	}
	doc, fit, err := encodeList(lr, s.cfg.MaxPageBytes)
	switch {
	case err != nil:
		status, b := encodeError(&httpError{status: http.StatusInternalServerError, message: "Internal Server Error"})
		return status, document{b}
	case doc == nil:
		status, b := encodeError(s.pageTooLarge(fit))
		return status, document{b}
	}
	return http.StatusOK, doc
}

// encodeList encodes lr as json.Marshal does, in parts: its objects one
// at a time. With a budget (max > 0) it stops at the first object that
// would take the document and its newline past max bytes, and returns
// no document and how many objects fit. Each object is dropped from
// lr.Data once encoded (a page is its answer's own), so the memory of
// its texts can be collected while the rest are encoded.
func encodeList(lr listResponse, max int64) (document, int, error) {
	if lr.Data == nil { // no objects to count: "data":null
		b, err := json.Marshal(lr)
		return document{b}, 0, err
	}
	pag, err := json.Marshal(lr.Pagination)
	if err != nil {
		return nil, 0, fmt.Errorf("server: the pagination: %w", err)
	}
	doc := document{dataOpen}
	n := int64(len(dataOpen) + len(dataClose) + len(pag) + len("}\n"))
	for i, o := range lr.Data {
		// goccy/go-json writes what encoding/json writes (keys sorted,
		// HTML and U+2028/U+2029 escaped, invalid UTF-8 as U+FFFD:
		// TestObjectsEncodeAsEncodingJSON) in a quarter fewer instructions
		// per page, most of them encoding/json's reflection over maps.
		b, err := gojson.Marshal(o)
		if err != nil {
			return nil, 0, fmt.Errorf("server: object %d of the page: %w", i, err)
		}
		lr.Data[i] = nil
		if i > 0 {
			n++
			doc = append(doc, comma)
		}
		if n += int64(len(b)); max > 0 && n > max {
			return nil, i, nil
		}
		doc = append(doc, b)
	}
	return append(doc, dataClose, pag, []byte("}")), 0, nil
}
