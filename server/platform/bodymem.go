package platform

import (
	"context"
	"errors"
	"io"
	"net/http"

	"github.com/croql/croql/server"
)

// Upload bodies count against the server's body memory budget
// (server.Config.MaxBodyMemory, --max-body-memory) while they arrive and
// while they are handled: a request reads its file with readBody, which
// reserves the memory before the bytes arrive; the memory is given back
// when the handler returns, or, for a storage of the two-step upload,
// when the storage is dropped (imported, deleted, evicted or expired).

// bodyHoldKey is the context key of a request's bodyHold.
type bodyHoldKey struct{}

// bodyHold is the memory of the budget a request's bodies hold.
type bodyHold struct{ n int64 }

// holdBodies gives the requests of h a bodyHold and releases what it
// holds once h returns. The upload routes also drop expired app tokens
// (pruneTokens), so they are freed even when no app asks for more.
func (p *Platform) holdBodies(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.pruneTokens()
		hold := &bodyHold{}
		defer func() { p.bodies.Release(hold.n) }()
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), bodyHoldKey{}, hold)))
	})
}

// takeBody moves the memory r's bodies hold to the caller (a storage
// that keeps the body past the request), which releases it.
func takeBody(r *http.Request) int64 {
	hold, _ := r.Context().Value(bodyHoldKey{}).(*bodyHold)
	if hold == nil {
		return 0
	}
	n := hold.n
	hold.n = 0
	return n
}

// readBody reads src, an uploaded file of declared bytes (negative: not
// declared), within the per-file quota and the body memory budget. The
// memory is held until the request's handler returns (holdBodies).
func (p *Platform) readBody(r *http.Request, src io.Reader, declared int64) ([]byte, *importError) {
	data, held, err := p.bodies.ReadAll(r.Context(), src, declared, p.cfg.MaxFileBytes)
	if hold, _ := r.Context().Value(bodyHoldKey{}).(*bodyHold); hold != nil {
		hold.n += held
	} else {
		p.bodies.Release(held) // counted while it arrived only
	}
	var tooLarge *http.MaxBytesError
	var full *server.BodyMemoryError
	switch {
	case err == nil:
		return data, nil
	case errors.As(err, &full):
		return nil, &importError{status: http.StatusServiceUnavailable, retryAfter: 1, msg: full.Error()}
	case errors.Is(err, server.ErrBodyTooLarge), errors.As(err, &tooLarge):
		return nil, fileTooLarge(p.cfg.MaxFileBytes)
	}
	return nil, failf(http.StatusBadRequest, "Reading the file: %v", err)
}
