package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
)

// Copy copies rows into a table of conn, a connection of pgx's
// database/sql driver, with COPY FROM STDIN (binary). It runs in the
// transaction the connection has open. The values are nil, bool, int64,
// float64 and string, as the loader makes them; they are encoded for
// the column types the table has (bigint, integer, smallint, boolean,
// double precision, text, varchar), and any other column type goes
// through pgx's general encoder. Load and NewLoader use a copier of their
// own that also overlaps the copies with the reading (see LoadOptions).
func Copy(ctx context.Context, conn *sql.Conn, table string, cols []string, rows [][]any) error {
	return conn.Raw(func(dc any) error {
		c, ok := dc.(pgxConner)
		if !ok {
			return errNotPgx
		}
		oids, err := describe(ctx, c.Conn().PgConn(), table, cols)
		if err != nil {
			return err
		}
		buf, err := appendCopyRows(nil, oids, rows)
		if errors.Is(err, errCopyType) {
			_, err = c.Conn().CopyFrom(ctx, pgx.Identifier{table}, cols, pgx.CopyFromRows(rows))
			return err
		}
		if err != nil {
			return err
		}
		_, err = c.Conn().PgConn().CopyFrom(ctx, bytes.NewReader(buf), copySQL(table, cols, false))
		return err
	})
}

var (
	errNotPgx   = errors.New("COPY needs pgx's database/sql driver (github.com/jackc/pgx/v5/stdlib)")
	errCopyType = errors.New("a column type the binary COPY encoder does not write")
)

// copySQL is COPY table (cols) FROM STDIN in the binary format; freeze
// adds FREEZE (the rows are written frozen, for a table created or
// truncated in the same transaction).
func copySQL(table string, cols []string, freeze bool) string {
	q := make([]string, len(cols))
	for i, c := range cols {
		q[i] = pgx.Identifier{c}.Sanitize()
	}
	opts := "FORMAT binary"
	if freeze {
		opts += ", FREEZE"
	}
	return "COPY " + pgx.Identifier{table}.Sanitize() + " (" + strings.Join(q, ", ") + ") FROM STDIN (" + opts + ")"
}

// describe returns the type OIDs of table's columns cols.
func describe(ctx context.Context, pc *pgconn.PgConn, table string, cols []string) ([]uint32, error) {
	q := make([]string, len(cols))
	for i, c := range cols {
		q[i] = pgx.Identifier{c}.Sanitize()
	}
	sd, err := pc.Prepare(ctx, "", "SELECT "+strings.Join(q, ", ")+" FROM "+pgx.Identifier{table}.Sanitize(), nil)
	if err != nil {
		return nil, err
	}
	oids := make([]uint32, len(sd.Fields))
	for i, f := range sd.Fields {
		oids[i] = f.DataTypeOID
	}
	return oids, nil
}

// copySignature starts every binary COPY stream: the signature, no flags,
// no header extension.
var copySignature = []byte("PGCOPY\n\xff\r\n\x00\x00\x00\x00\x00\x00\x00\x00\x00")

// appendCopyRows appends rows in COPY's binary format, header and
// trailer included, to buf. oids are the column types; a value that does
// not fit its column is an error, a column type it does not write is
// errCopyType.
func appendCopyRows(buf []byte, oids []uint32, rows [][]any) ([]byte, error) {
	for _, oid := range oids {
		switch oid {
		case pgtype.Int8OID, pgtype.Int4OID, pgtype.Int2OID, pgtype.BoolOID, pgtype.Float8OID, pgtype.TextOID, pgtype.VarcharOID:
		default:
			return buf, errCopyType
		}
	}
	buf = append(buf, copySignature...)
	buf, err := appendCopyBody(buf, oids, rows)
	if err != nil {
		return buf, err
	}
	return append(buf, 0xff, 0xff), nil
}

// appendCopyBody appends rows in COPY's binary format, without header and
// trailer, to buf, for columns of the types appendCopyRows writes.
func appendCopyBody(buf []byte, oids []uint32, rows [][]any) ([]byte, error) {
	for _, row := range rows {
		if len(row) != len(oids) {
			return buf, fmt.Errorf("a row of %d values for %d columns", len(row), len(oids))
		}
		buf = binary.BigEndian.AppendUint16(buf, uint16(len(row)))
		for i, v := range row {
			var err error
			if buf, err = appendCopyValue(buf, oids[i], v); err != nil {
				return buf, fmt.Errorf("column %d: %w", i+1, err)
			}
		}
	}
	return buf, nil
}

// appendCopyValue appends one field: its length (-1: NULL) and its bytes.
func appendCopyValue(buf []byte, oid uint32, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(buf, 0xff, 0xff, 0xff, 0xff), nil
	case int64:
		switch oid {
		case pgtype.Int8OID:
			buf = binary.BigEndian.AppendUint32(buf, 8)
			return binary.BigEndian.AppendUint64(buf, uint64(x)), nil
		case pgtype.Int4OID:
			if x >= math.MinInt32 && x <= math.MaxInt32 {
				buf = binary.BigEndian.AppendUint32(buf, 4)
				return binary.BigEndian.AppendUint32(buf, uint32(int32(x))), nil
			}
		case pgtype.Int2OID:
			if x >= math.MinInt16 && x <= math.MaxInt16 {
				buf = binary.BigEndian.AppendUint32(buf, 2)
				return binary.BigEndian.AppendUint16(buf, uint16(int16(x))), nil
			}
		}
	case bool:
		if oid == pgtype.BoolOID {
			b := byte(0)
			if x {
				b = 1
			}
			return append(binary.BigEndian.AppendUint32(buf, 1), b), nil
		}
	case float64:
		if oid == pgtype.Float8OID {
			buf = binary.BigEndian.AppendUint32(buf, 8)
			return binary.BigEndian.AppendUint64(buf, math.Float64bits(x)), nil
		}
	case string:
		if oid == pgtype.TextOID || oid == pgtype.VarcharOID {
			if len(x) > math.MaxInt32 {
				return buf, errors.New("a string longer than a COPY field")
			}
			buf = binary.BigEndian.AppendUint32(buf, uint32(len(x)))
			return append(buf, x...), nil
		}
	}
	return buf, fmt.Errorf("cannot store a %T in a column of type OID %d", v, oid)
}

// copier is the CopyFunc of one load into PostgreSQL. Each batch is
// encoded when it comes (so the loader may reuse its rows) and added to
// the rows of its table waiting to be sent; when those reach limit bytes
// a goroutine of the copier sends them, one COPY at a time on the load's
// connection, in its transaction, while the loader reads on. Fewer,
// larger COPY statements cost the server less than one per batch of the
// loader. An error of a copy in the background is returned by the next
// Copy or by Wait.
type copier struct {
	freeze bool
	limit  int
	oids   map[string][]uint32
	// pending are the encoded rows of each table not sent yet.
	pending map[string]*pendingCopy
	// free holds buffers the goroutine is done with; jobs is the copy
	// waiting for the goroutine (at most one, and one being sent).
	free chan []byte
	jobs chan copyJob
	done chan struct{}

	mu  sync.Mutex
	err error
}

type pendingCopy struct {
	cols []string
	buf  []byte
}

type copyJob struct {
	ctx   context.Context
	conn  *sql.Conn
	table string
	cols  []string
	buf   []byte
}

// copyLimit is how many bytes of encoded rows of one table make a COPY:
// on 100,000 strings (175 MB of rows) about 100 statements instead of
// 430 of the loader's batches, about 0.5 s less server CPU (4.5 s
// instead of 5.0, three runs each), for about 100 MB more peak memory
// (4 MB: no less CPU, 250 MB more).
const copyLimit = 2 << 20

// newCopier returns a copier; freeze: the tables were created in the
// load's transaction and the rows may be written frozen (COPY FREEZE).
func newCopier(freeze bool) *copier {
	return &copier{freeze: freeze, limit: copyLimit, oids: map[string][]uint32{},
		pending: map[string]*pendingCopy{}, free: make(chan []byte, 3)}
}

func (c *copier) failed() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Copy is the CopyFunc of the load.
func (c *copier) Copy(ctx context.Context, conn *sql.Conn, table string, cols []string, rows [][]any) error {
	if err := c.failed(); err != nil {
		return err
	}
	oids, ok := c.oids[table]
	if !ok {
		// The connection is the goroutine's until its copies are done.
		if err := c.wait(); err != nil {
			return err
		}
		err := conn.Raw(func(dc any) error {
			pc, ok := dc.(pgxConner)
			if !ok {
				return errNotPgx
			}
			var err error
			oids, err = describe(ctx, pc.Conn().PgConn(), table, cols)
			return err
		})
		if err != nil {
			return err
		}
		if _, err := appendCopyRows(nil, oids, nil); err != nil {
			oids = nil // a column type of pgx's encoder: Copy, batch by batch
		}
		c.oids[table] = oids
	}
	if oids == nil {
		if err := c.Wait(ctx, conn); err != nil {
			return err
		}
		return Copy(ctx, conn, table, cols, rows)
	}
	p := c.pending[table]
	if p == nil {
		p = &pendingCopy{cols: cols}
		select {
		case p.buf = <-c.free:
		default:
			// Room for the limit and one batch more: the buffer does
			// not grow by copying (the garbage of that doubled the
			// load's peak memory).
			p.buf = make([]byte, 0, c.limit+c.limit/2)
		}
		p.buf = append(p.buf[:0], copySignature...)
		c.pending[table] = p
	}
	n := len(p.buf)
	var err error
	if p.buf, err = appendCopyBody(p.buf, oids, rows); err != nil {
		p.buf = p.buf[:n]
		return err
	}
	if len(p.buf) < c.limit {
		return nil
	}
	delete(c.pending, table)
	return c.send(ctx, conn, table, p)
}

// send hands the rows of p to the goroutine, starting it if need be.
func (c *copier) send(ctx context.Context, conn *sql.Conn, table string, p *pendingCopy) error {
	if c.jobs == nil {
		c.jobs, c.done = make(chan copyJob, 1), make(chan struct{})
		go c.run(c.jobs, c.done)
	}
	select {
	case c.jobs <- copyJob{ctx: ctx, conn: conn, table: table, cols: p.cols, buf: append(p.buf, 0xff, 0xff)}:
		return nil
	case <-c.done:
		// The goroutine stopped on an error.
		return c.failed()
	}
}

// run sends the copies it is given until jobs is closed or one fails.
func (c *copier) run(jobs <-chan copyJob, done chan<- struct{}) {
	defer close(done)
	for j := range jobs {
		err := j.conn.Raw(func(dc any) error {
			pc, ok := dc.(pgxConner)
			if !ok {
				return errNotPgx
			}
			_, err := pc.Conn().PgConn().CopyFrom(j.ctx, bytes.NewReader(j.buf), copySQL(j.table, j.cols, c.freeze))
			return err
		})
		select {
		case c.free <- j.buf:
		default:
		}
		if err != nil {
			c.mu.Lock()
			c.err = fmt.Errorf("copying into %s: %w", j.table, err)
			c.mu.Unlock()
			return
		}
	}
}

// wait waits for the goroutine to send what it was given.
func (c *copier) wait() error {
	if c.jobs != nil {
		close(c.jobs)
		<-c.done
		c.jobs, c.done = nil, nil
	}
	return c.failed()
}

// Wait sends the rows still pending and returns when every copy is done,
// with the first error; it is the load's WithCopyWait.
func (c *copier) Wait(ctx context.Context, conn *sql.Conn) error {
	tables := slices.Sorted(maps.Keys(c.pending))
	for _, t := range tables {
		p := c.pending[t]
		delete(c.pending, t)
		if c.failed() == nil {
			if err := c.send(ctx, conn, t, p); err != nil {
				break
			}
		}
	}
	return c.wait()
}

// LoadOptions are the LoadOption that feed db the fastest way it
// takes rows: for PostgreSQL, binary COPY (a copier of the load, so
// call LoadOptions once per load) and, in a scratch schema of Open,
// UNLOGGED tables (no write-ahead log for data that lives as long as
// the program); none (multi-row INSERTs) otherwise.
func (db *DB) LoadOptions() []LoadOption {
	b := db.backend
	if b == nil && db.Dialect != nil {
		b, _ = backendByName(db.Dialect.Name())
	}
	if b == nil {
		return nil
	}
	return b.loadOptions(db)
}

// Load is compile.Load into db with db's LoadOptions.
func Load(ctx context.Context, db *DB, m *mapping.Mapping, p *schema.Project) error {
	if db == nil {
		return errors.New("store: Load needs an open database")
	}
	if err := LoadSQL(ctx, db.SQL, db.Dialect, m, p, db.LoadOptions()...); err != nil {
		return err
	}
	return db.Publish(ctx)
}

// NewLoader is compile.NewLoader into db with db's LoadOptions. Into a
// target of OpenTarget, call db.Publish after the loader's Finish.
func NewLoader(ctx context.Context, db *DB, m *mapping.Mapping) (*Loader, error) {
	if db == nil {
		return nil, errors.New("store: NewLoader needs an open database")
	}
	return NewSQLLoader(ctx, db.SQL, db.Dialect, m, db.LoadOptions()...)
}
