package server

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// Defaults of the connection limits of [Server.Serve] (Config fields of
// the same names).
const (
	// DefaultMaxConns caps the connections open at once; one more is
	// closed as soon as it is accepted.
	DefaultMaxConns = 1024
	// DefaultMaxConnsPerClient caps the connections open at once from
	// one client address (IP).
	DefaultMaxConnsPerClient = 64
	// DefaultMinBodyRate is the slowest average rate, in bytes per
	// second, a request body may arrive at once DefaultBodyGrace has
	// passed since the request's headers.
	DefaultMinBodyRate = 16 << 10
	// DefaultBodyGrace is the time a body may take before the rate
	// applies.
	DefaultBodyGrace = 5 * time.Second
	// ReadHeaderTimeout bounds reading a request's headers.
	ReadHeaderTimeout = 10 * time.Second
	// IdleTimeout closes a keep-alive connection idle that long.
	IdleTimeout = 2 * time.Minute
	// MaxHeaderBytes bounds a request's line and headers: room for a
	// 64 KiB query percent-encoded in the URL.
	MaxHeaderBytes = 256 << 10
	// DefaultWriteTimeout is the time an answer may take to reach the
	// client from its first byte (Config.WriteTimeout).
	DefaultWriteTimeout = 30 * time.Second
)

// limitListener closes, as soon as they are accepted, the connections
// beyond perClient from one IP address. At max connections in total, a
// new connection from a client that holds fewer than the busiest client
// takes the place of the busiest client's oldest connection; otherwise it
// is closed. So connections held open from many addresses fill the cap
// without shutting out a client that holds few or none.
type limitListener struct {
	net.Listener
	max, perClient int

	mu    sync.Mutex
	total int
	per   map[string][]*limitConn // each client's connections, oldest first
}

func newLimitListener(ln net.Listener, max, perClient int) *limitListener {
	return &limitListener{Listener: ln, max: max, perClient: perClient, per: map[string][]*limitConn{}}
}

func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		host, _, err := net.SplitHostPort(c.RemoteAddr().String())
		if err != nil {
			host = c.RemoteAddr().String()
		}
		l.mu.Lock()
		if l.perClient > 0 && len(l.per[host]) >= l.perClient {
			l.mu.Unlock()
			_ = c.Close()
			continue
		}
		var evict *limitConn
		if l.max > 0 && l.total >= l.max {
			if evict = l.busiestOldest(len(l.per[host]) + 1); evict == nil {
				l.mu.Unlock()
				_ = c.Close()
				continue
			}
			l.remove(evict)
		}
		lc := &limitConn{Conn: c, l: l, host: host}
		l.total++
		l.per[host] = append(l.per[host], lc)
		l.mu.Unlock()
		if evict != nil {
			_ = evict.Conn.Close()
		}
		return lc, nil
	}
}

// busiestOldest is the oldest connection of the client holding the most
// connections, if it holds more than n; nil otherwise. l.mu is held.
func (l *limitListener) busiestOldest(n int) *limitConn {
	var busiest []*limitConn
	for _, cs := range l.per {
		if len(cs) > len(busiest) {
			busiest = cs
		}
	}
	if len(busiest) <= n {
		return nil
	}
	return busiest[0]
}

// remove gives c's place back, once. l.mu is held.
func (l *limitListener) remove(c *limitConn) {
	if c.released {
		return
	}
	c.released = true
	l.total--
	cs := l.per[c.host]
	for i, x := range cs {
		if x == c {
			cs = append(cs[:i:i], cs[i+1:]...)
			break
		}
	}
	if len(cs) == 0 {
		delete(l.per, c.host)
	} else {
		l.per[c.host] = cs
	}
}

// limitConn gives its place back once, when closed or evicted.
type limitConn struct {
	net.Conn
	l        *limitListener
	host     string
	released bool // guarded by l.mu
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.l.mu.Lock()
	c.l.remove(c)
	c.l.mu.Unlock()
	return err
}

// errBodyTooSlow is a request body that arrived slower than the minimum
// rate.
var errBodyTooSlow = errors.New("the request body arrives too slowly")

// minBodyRate makes a request body arrive at rate bytes per second on
// average once grace has passed since the request reached the handler:
// before each read of the body, the connection's read deadline is set to
// the time the bytes so far were due by; it is lifted when the body has
// been read whole. A slower body fails its read (handlers answer it as a
// bad body) and its connection is closed.
func minBodyRate(next http.Handler, rate int64, grace time.Duration) http.Handler {
	if rate <= 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody {
			next.ServeHTTP(w, r)
			return
		}
		r.Body = &rateBody{ReadCloser: r.Body, rc: http.NewResponseController(w), start: time.Now(), rate: rate, grace: grace}
		next.ServeHTTP(w, r)
	})
}

type rateBody struct {
	io.ReadCloser
	rc    *http.ResponseController
	start time.Time
	rate  int64
	grace time.Duration
	n     int64
	done  bool
}

func (b *rateBody) Read(p []byte) (int, error) {
	if b.done {
		return b.ReadCloser.Read(p)
	}
	due := b.start.Add(b.grace + time.Duration(float64(b.n)/float64(b.rate)*float64(time.Second)))
	if !time.Now().Before(due) {
		return 0, fmt.Errorf("%w (at least %d bytes/s)", errBodyTooSlow, b.rate)
	}
	if err := b.rc.SetReadDeadline(due); err != nil {
		// The writer has no deadlines (a test recorder): no rate.
		b.done = true
		return b.ReadCloser.Read(p)
	}
	n, err := b.ReadCloser.Read(p)
	b.n += int64(n)
	switch {
	case err == io.EOF:
		// Read whole: the server's own read for the next request (or
		// for a closed connection) must not meet this deadline.
		b.done = true
		_ = b.rc.SetReadDeadline(time.Time{})
	case err != nil:
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			err = fmt.Errorf("%w (at least %d bytes/s): %w", errBodyTooSlow, b.rate, err)
		}
	}
	return n, err
}

// answerDeadline gives each answer d to be written, counted from its
// first byte (its status line): a client that stops reading has its
// connection closed when d has passed, and the handler writing to it
// returns. The deadline is set when the answer starts rather than when
// the request arrives, so that a slow upload or a long query is not
// cut by it (the body rate and the statement timeout bound those); the
// deadline an earlier answer set on a keep-alive connection is lifted
// first.
func answerDeadline(next http.Handler, d time.Duration) http.Handler {
	if d <= 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		_ = rc.SetWriteDeadline(time.Time{})
		next.ServeHTTP(&deadlineWriter{ResponseWriter: w, rc: rc, d: d}, r)
	})
}

// deadlineWriter sets its connection's write deadline at the first byte
// of the answer.
type deadlineWriter struct {
	http.ResponseWriter
	rc      *http.ResponseController
	d       time.Duration
	started bool
}

func (w *deadlineWriter) start() {
	if !w.started {
		w.started = true
		_ = w.rc.SetWriteDeadline(time.Now().Add(w.d))
	}
}

func (w *deadlineWriter) WriteHeader(code int) {
	w.start()
	w.ResponseWriter.WriteHeader(code)
}

func (w *deadlineWriter) Write(b []byte) (int, error) {
	w.start()
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *deadlineWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
