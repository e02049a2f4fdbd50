package server

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/assert"
)

// TestRetryIsServiceUnavailable: a query the database cancelled for a
// reason that passes (a hot standby's recovery conflict, SQLSTATE 40001;
// a deadlock) is a 503 with Retry-After: 1 and the database's message,
// not a 500.
func TestRetryIsServiceUnavailable(t *testing.T) {
	s := &Server{log: slog.New(slog.DiscardHandler)}
	r := httptest.NewRequest(http.MethodGet, "/api/v2/projects/1/strings", nil)
	for _, err := range []error{
		fmt.Errorf("server: reading: %w", &pgconn.PgError{Severity: "ERROR", Code: "40001", Message: "canceling statement due to conflict with recovery"}),
		&pgconn.PgError{Severity: "ERROR", Code: "40P01", Message: "deadlock detected"},
	} {
		e := s.dbError(r, context.Background(), "count of comments > 0", err)
		assert.Equal(t, http.StatusServiceUnavailable, e.status, "%v", err)
		assert.Equal(t, 1, e.retryAfter)
		w := httptest.NewRecorder()
		writeError(w, e)
		assert.Equal(t, http.StatusServiceUnavailable, w.Code)
		assert.Equal(t, "1", w.Header().Get("Retry-After"))
		assert.Contains(t, w.Body.String(), "try again")
	}
	// Any other error of the database stays a 500 without Retry-After.
	e := s.dbError(r, context.Background(), "", &pgconn.PgError{Severity: "ERROR", Code: "42P01", Message: "relation does not exist"})
	assert.Equal(t, http.StatusInternalServerError, e.status)
	assert.Zero(t, e.retryAfter)
}
