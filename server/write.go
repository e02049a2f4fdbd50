package server

// The writers of every answer: JSON documents, the platform's error
// shapes, and a list's page within its byte budget.

import (
	"encoding/json"
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

// writeJSONBytes writes b, a JSON document, as WriteJSON does.
func writeJSONBytes(w http.ResponseWriter, status int, b []byte) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)+1))
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
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
	status, b := s.encodeBody(body)
	writeJSONBytes(w, status, b)
}

// encodeBody is the JSON document writeBody writes for body, and its
// status: a list answer over the byte budget is the 400 that says how
// many of its objects fit, a body that cannot be written as JSON the
// 500 WriteJSON writes.
func (s *Server) encodeBody(body any) (int, []byte) {
	lr, ok := body.(listResponse)
	if !ok || s.cfg.MaxPageBytes <= 0 {
		return encodeJSON(http.StatusOK, body)
	}
	b, err := json.Marshal(lr)
	if err != nil {
		return encodeJSON(http.StatusOK, body) // the same failure, answered as WriteJSON does
	}
	if int64(len(b))+1 <= s.cfg.MaxPageBytes {
		return http.StatusOK, b
	}
	// How many objects fit: the envelope, then each object and its comma.
	empty, _ := json.Marshal(listResponse{Data: []any{}, Pagination: lr.Pagination})
	n, fit := int64(len(empty))+1, 0
	for i, o := range lr.Data {
		ob, _ := json.Marshal(o)
		if n += int64(len(ob)); i > 0 {
			n++
		}
		if n > s.cfg.MaxPageBytes {
			break
		}
		fit++
	}
	return encodeError(s.pageTooLarge(fit))
}
