package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
)

// DefaultMaxPageBytes is the byte budget of a list answer
// (Config.MaxPageBytes).
const DefaultMaxPageBytes = 32 << 20

// pageBudgetError stops reading a page's rows once their texts alone
// have passed the page's byte budget: the answer would pass it too.
type pageBudgetError struct {
	fit int // rows read before the one that passed the budget
}

func (e *pageBudgetError) Error() string {
	return fmt.Sprintf("server: the page passes its byte budget after %d objects", e.fit)
}

// pageBytes counts the bytes of a page's texts as its rows are read,
// against the byte budget max (no budget when 0 or less).
type pageBytes struct {
	max, n int64
	rows   int
}

// add counts one row's values; it fails once the rows read so far hold
// more than the budget.
func (b *pageBytes) add(vals []any) error {
	if b.max <= 0 {
		return nil
	}
	for _, v := range vals {
		switch v := v.(type) {
		case string:
			b.n += int64(len(v))
		case []byte:
			b.n += int64(len(v))
		}
	}
	if b.n > b.max {
		return &pageBudgetError{fit: b.rows}
	}
	b.rows++
	return nil
}

// pageTooLarge is the 400 of a page over the byte budget: ask for fewer
// objects (fit of them fit), or, when not even the first one fits, that
// object cannot be listed by this server.
func (s *Server) pageTooLarge(fit int) *httpError {
	budget := strconv.FormatInt(s.cfg.MaxPageBytes, 10)
	if fit == 0 {
		return invalid("limit", "pageTooLarge", "the first object of this page alone is larger than the server's page budget of "+budget+
			" bytes (--max-page-bytes); it cannot be listed by this server")
	}
	e := invalid("limit", "pageTooLarge", fmt.Sprintf("the page would be larger than the server's page budget of %s bytes (--max-page-bytes): its first %d objects fit; ask for limit=%d or less",
		budget, fit, fit))
	e.validation[0].Errors[0].Fit = fit
	return e
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
