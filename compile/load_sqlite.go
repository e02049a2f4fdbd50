package compile

import (
	"database/sql/driver"
	"fmt"
	"sync"
)

// rawWriter runs the INSERTs of a load on a goroutine of their own, so
// that SQLite executes one batch while the loader converts the next
// objects into rows (the reading, checking and converting of a file is
// about a third of a SQLite load's CPU time, and SQLite runs on one
// thread). Batches queue in a bounded channel; the row slices come back
// to the loader through free for reuse. The writer alone uses the
// connection until wait returns.
type rawWriter struct {
	ld   *loader
	jobs chan rawJob
	free chan []any
	wg   sync.WaitGroup

	mu      sync.Mutex
	err     error
	stopped bool
}

// rawJob is one multi-row INSERT: rows rows of b's columns in vals.
type rawJob struct {
	b    *batch
	vals []any
	rows int
}

// rawQueue is how many batches may wait for the writer: enough to ride
// out an uneven pace on either side, with memory bounded by it (a batch
// holds at most 500 rows or about 4 MB of text).
const rawQueue = 8

func newRawWriter(ld *loader) *rawWriter {
	w := &rawWriter{ld: ld, jobs: make(chan rawJob, rawQueue), free: make(chan []any, rawQueue+2)}
	w.wg.Add(1)
	go w.run()
	return w
}

func (w *rawWriter) run() {
	defer w.wg.Done()
	for j := range w.jobs {
		if w.failed() == nil {
			if err := w.ld.execRaw(j.b, j.vals, j.rows); err != nil {
				w.fail(fmt.Errorf("compile: inserting into %s: %w", j.b.table, err))
			}
		}
		clear(j.vals) // let the strings go
		select {
		case w.free <- j.vals[:0]:
		default:
		}
	}
}

// failed is the first error of the writer, or ErrLoadAborted once stop
// was called.
func (w *rawWriter) failed() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

func (w *rawWriter) fail(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil {
		w.err = err
	}
}

// send queues the rows of b and gives b an empty slice for the next.
// It returns the writer's error, if an earlier batch failed.
func (w *rawWriter) send(b *batch) error {
	if err := w.failed(); err != nil {
		return err
	}
	w.jobs <- rawJob{b: b, vals: b.vals, rows: b.rows}
	select {
	case b.vals = <-w.free:
	default:
		b.vals = make([]any, 0, cap(b.vals))
	}
	return nil
}

// wait stops the writer after the queued batches and returns its error.
func (w *rawWriter) wait() error {
	w.mu.Lock()
	stopped := w.stopped
	w.stopped = true
	w.mu.Unlock()
	if !stopped {
		close(w.jobs)
	}
	w.wg.Wait()
	return w.failed()
}

// abort drops the queued batches and stops the writer.
func (w *rawWriter) abort() {
	w.fail(errLoadAborted)
	_ = w.wait()
}

var errLoadAborted = fmt.Errorf("compile: the load was aborted")

// execRaw inserts rows rows (vals) of b through the driver of ld.raw.
// Only the writer goroutine calls it during a load.
func (ld *loader) execRaw(b *batch, vals []any, rows int) error {
	return ld.raw.Raw(func(dc any) error {
		st := b.dstmt
		if st == nil || rows != b.max {
			cp, ok := dc.(driver.ConnPrepareContext)
			if !ok {
				return fmt.Errorf("compile: driver %T cannot prepare with a context", dc)
			}
			var err error
			if st, err = cp.PrepareContext(ld.ctx, ld.insert(b.table, b.cols, rows)); err != nil {
				return err
			}
			if rows == b.max {
				b.dstmt = st
			} else {
				defer st.Close()
			}
		}
		se, ok := st.(driver.StmtExecContext)
		if !ok {
			return fmt.Errorf("compile: driver statement %T cannot run with a context", st)
		}
		nv := b.nv[:0]
		for i, v := range vals {
			nv = append(nv, driver.NamedValue{Ordinal: i + 1, Value: v})
		}
		b.nv = nv
		_, err := se.ExecContext(ld.ctx, nv)
		clear(nv) // let the strings go
		return err
	})
}
