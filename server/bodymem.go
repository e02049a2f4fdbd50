package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
)

// DefaultMaxBodyMemory is the memory the request bodies held by the
// server may take at once (Config.MaxBodyMemory): uploads as they arrive
// and while they are imported, and the storages of the two-step upload
// until they are dropped.
const DefaultMaxBodyMemory = 192 << 20

// bodyWait is how long a body waits for memory before its 503: an
// upload holds its memory for milliseconds to seconds, so a short burst
// queues instead of failing.
const bodyWait = 2 * time.Second

// bodyChunk is the memory a body of undeclared length reserves at a
// time as it arrives.
const bodyChunk = 1 << 20

// ErrBodyTooLarge is BodyMemory.ReadAll's error for a body longer than
// its limit.
var ErrBodyTooLarge = errors.New("server: the body is larger than its limit")

// BodyMemoryError is the error of a body that could not get memory
// within the wait: the bodies held by the server take the whole budget.
type BodyMemoryError struct {
	// Max is the budget, in bytes.
	Max int64
}

func (e *BodyMemoryError) Error() string {
	return fmt.Sprintf("The request bodies held by the server take all of their memory budget (%d MiB, --max-body-memory); try again shortly", e.Max>>20)
}

// BodyMemory is the server-wide budget of the memory request bodies hold
// (Config.MaxBodyMemory). A body reserves its memory before it is read;
// what it reserved is held until Release. The zero budget (or a nil
// BodyMemory) bounds nothing.
type BodyMemory struct {
	max   int64
	wait  time.Duration
	mu    sync.Mutex
	used  int64
	freed chan struct{} // closed and replaced at each Release
}

// NewBodyMemory returns a budget of max bytes (none when 0 or less); a
// reservation waits up to wait for memory (bodyWait when 0).
func NewBodyMemory(max int64, wait time.Duration) *BodyMemory {
	if wait <= 0 {
		wait = bodyWait
	}
	return &BodyMemory{max: max, wait: wait, freed: make(chan struct{})}
}

// Max is the budget in bytes (0 or less: none).
func (m *BodyMemory) Max() int64 {
	if m == nil {
		return 0
	}
	return m.max
}

// Used is the memory reserved now.
func (m *BodyMemory) Used() int64 {
	if m == nil {
		return 0
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.used
}

// Reserve takes n bytes of the budget, waiting for them until the wait
// passes or ctx ends: then it fails with a *BodyMemoryError (or ctx's
// error) and holds nothing.
func (m *BodyMemory) Reserve(ctx context.Context, n int64) error {
	if m == nil || m.max <= 0 || n <= 0 {
		return nil
	}
	if n > m.max {
		return &BodyMemoryError{Max: m.max}
	}
	var timeout <-chan time.Time
	for {
		m.mu.Lock()
		if m.used+n <= m.max {
			m.used += n
			m.mu.Unlock()
			return nil
		}
		freed := m.freed
		m.mu.Unlock()
		if timeout == nil {
			t := time.NewTimer(m.wait)
			defer t.Stop()
			timeout = t.C
		}
		select {
		case <-freed:
		case <-timeout:
			return &BodyMemoryError{Max: m.max}
		case <-ctx.Done():
			return fmt.Errorf("server: waiting for body memory: %w", ctx.Err())
		}
	}
}

// Release gives back n bytes that Reserve took.
func (m *BodyMemory) Release(n int64) {
	if m == nil || m.max <= 0 || n <= 0 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.used -= n
	close(m.freed)
	m.freed = make(chan struct{})
}

// ReadAll reads src, a body of declared bytes (negative: not declared),
// holding memory of the budget for it as it arrives: a declared body
// reserves its length before its first byte is read, so it never holds
// part of the budget while it waits for the rest; an undeclared one
// reserves 1 MiB at a time. A body longer than limit is ErrBodyTooLarge.
// On success the caller holds held bytes of the budget (the capacity of
// data) and releases them once it drops data; on failure it holds none.
func (m *BodyMemory) ReadAll(ctx context.Context, src io.Reader, declared, limit int64) (data []byte, held int64, err error) {
	if declared > limit {
		return nil, 0, ErrBodyTooLarge
	}
	if declared >= 0 {
		if err := m.Reserve(ctx, declared); err != nil {
			return nil, 0, err
		}
		data = make([]byte, declared)
		if _, err := io.ReadFull(src, data); err != nil {
			m.Release(declared)
			return nil, 0, fmt.Errorf("server: reading the body: %w", err)
		}
		return data, declared, nil
	}
	return m.readChunks(ctx, src, limit)
}

// readChunks is ReadAll of a body of undeclared length: 1 MiB chunks,
// each reserved before it is read, joined at the end (the copy reserved
// too).
func (m *BodyMemory) readChunks(ctx context.Context, src io.Reader, limit int64) ([]byte, int64, error) {
	var chunks [][]byte
	var total, reserved int64
	fail := func(err error) ([]byte, int64, error) {
		m.Release(reserved)
		return nil, 0, err
	}
	for {
		if err := m.Reserve(ctx, bodyChunk); err != nil {
			return fail(err)
		}
		reserved += bodyChunk
		c := make([]byte, bodyChunk)
		n, err := io.ReadFull(src, c)
		chunks = append(chunks, c[:n])
		if total += int64(n); total > limit {
			return fail(ErrBodyTooLarge)
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			break
		}
		if err != nil {
			return fail(fmt.Errorf("server: reading the body: %w", err))
		}
	}
	if err := m.Reserve(ctx, total); err != nil {
		return fail(err)
	}
	data := make([]byte, 0, total)
	for _, c := range chunks {
		data = append(data, c...)
	}
	m.Release(reserved)
	return data, total, nil
}
