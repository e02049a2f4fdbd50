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

// writeBody writes a handler's answer. A list answer larger than
// Config.MaxPageBytes is refused whole (a 400 under the key limit that
// says how many of its objects fit) rather than cut short: the
// platform's clients read a page shorter than its limit as the last one.
func (s *Server) writeBody(w http.ResponseWriter, body any) {
	lr, ok := body.(listResponse)
	if !ok || s.cfg.MaxPageBytes <= 0 {
		WriteJSON(w, http.StatusOK, body)
		return
	}
	b, err := json.Marshal(lr)
	if err != nil {
		WriteJSON(w, http.StatusOK, body) // the same failure, answered as WriteJSON does
		return
	}
	if int64(len(b))+1 <= s.cfg.MaxPageBytes {
		writeJSONBytes(w, http.StatusOK, b)
		return
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
	writeError(w, s.pageTooLarge(fit))
}
