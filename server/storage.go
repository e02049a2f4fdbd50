package server

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/croql/croql/compile"
	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/store"
)

// Project is one project the server serves: its identity, its user and
// language directories (what @user and @language mentions resolve against)
// and the database that holds its data in the reference schema.
//
// The project's translation memory and glossary have the project's id
// (tmId = glossaryId = projectId): a data file holds one of each.
type Project struct {
	ID              int64
	Name            string
	SourceLanguage  string
	TargetLanguages []string
	// Users maps logins to ids; Logins is the reverse.
	Users  map[string]int64
	Logins map[int64]string
	// Languages lists every language code of the project (source first).
	Languages []string
	// LanguageInfo describes the project's languages by code (the data
	// file's languages entries; empty for data served from a DSN).
	LanguageInfo map[string]schema.LanguageInfo
	// Created and Updated are the earliest and the latest date of the
	// project's strings (zero when unknown): its createdAt, updatedAt and
	// lastActivity in the API.
	Created, Updated time.Time
	// Scratch is the scratch schema (PostgreSQL) or database (MySQL) the
	// project was loaded into, or the SQLite file; Close removes it.
	// Empty for data the storage did not create.
	Scratch string
	// Source, when set, reads the project's objects as they were loaded:
	// the resident snapshot is built from it (Server.BuildResident),
	// copying them into its own compact layout. It may stop with
	// ErrOverBudget as soon as the objects it has read take more than max
	// bytes (max ≤ 0: no bound); the copy stops when it passes max.
	// SourceFile, when set, is the project file (JSON or NDJSON) the
	// objects were loaded from, as croql serve --data loads them: the
	// snapshot is read from it straight into its layout, stopping as soon
	// as its objects pass the budget, and Source is not called.
	// SourceSize is the size of what they read (a file's bytes; 0 when
	// unknown): a source larger than the snapshot budget is not read.
	Source     func(ctx context.Context, max int64) (*schema.Project, error)
	SourceFile string
	SourceSize int64

	// version counts the committed writes (WriteTx) to the project.
	version atomic.Int64
	db      *sql.DB
	dialect compile.Dialect
	mapping *mapping.Mapping
	// writes counts the committed write transactions (what the server's
	// statistics of the project are read again after).
	writes atomic.Int64
	// features caches runs: statement → whether the engine runs it.
	features sync.Map
}

// Dialect is the SQL dialect of the project's database.
func (p *Project) Dialect() compile.Dialect { return p.dialect }

// Mapping is where the project's objects are stored: its storage's
// mapping, which every read and write of the project names tables and
// columns through.
func (p *Project) Mapping() *mapping.Mapping {
	if p.mapping == nil { // a project not added to a storage
		return mapping.Default(schema.New())
	}
	return p.mapping
}

// DB is the connection pool of the project's database.
func (p *Project) DB() *sql.DB { return p.db }

// HasLanguage reports whether code is one of the project's target languages.
func (p *Project) HasLanguage(code string) bool { return slices.Contains(p.TargetLanguages, code) }

// runs reports whether the project's engine runs stmt, a statement that
// reads nothing (a feature of the engine's SQL: a function, a form of
// EXPLAIN), asked once per project: what the server's SQL may use.
func (p *Project) runs(ctx context.Context, stmt string) bool {
	if v, ok := p.features.Load(stmt); ok {
		return v.(bool)
	}
	if p.db == nil {
		return false
	}
	rows, err := p.db.QueryContext(ctx, stmt)
	if err == nil {
		err = errors.Join(rows.Err(), rows.Close())
	}
	if ctx.Err() != nil {
		return false // not known yet: asked again next time
	}
	p.features.Store(stmt, err == nil)
	return err == nil
}

// Storage is the set of projects a server serves and the databases that
// hold them. Reads go through [Storage.ReadTx], writes (for routes that
// import data) through [Storage.WriteTx]; both run a function inside one
// transaction of the project's database.
//
// Close closes every database and removes what the storage created: the
// SQLite files of a temporary directory, the scratch schemas (PostgreSQL)
// or databases (MySQL/MariaDB) the projects were loaded into.
type Storage struct {
	mu       sync.RWMutex
	projects []*Project
	closers  []func() error
	closed   bool
	mapping  *mapping.Mapping
}

// Mapping is the storage's mapping of the catalog's objects to tables
// (the reference mapping, mapping.Default), made once: its loads, reads
// and the platform's writes name tables and columns through it.
func (s *Storage) Mapping() *mapping.Mapping {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mappingLocked()
}

func (s *Storage) mappingLocked() *mapping.Mapping {
	if s.mapping == nil {
		s.mapping = mapping.Default(schema.New())
	}
	return s.mapping
}

// Projects lists the projects in id order.
func (s *Storage) Projects() []*Project {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return slices.Clone(s.projects)
}

// Project returns the project with the given id.
func (s *Storage) Project(id int64) (*Project, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, p := range s.projects {
		if p.ID == id {
			return p, true
		}
	}
	return nil, false
}

// ReadTx runs fn in a read-only transaction of p's database: every
// statement of fn sees the same snapshot (a page and its total agree). The
// transaction ends with fn; ctx bounds it (its deadline is the statement
// timeout).
func (s *Storage) ReadTx(ctx context.Context, p *Project, fn func(*sql.Tx) error) error {
	return s.tx(ctx, p, true, fn)
}

// WriteTx runs fn in a read-write transaction of p's database, committed
// when fn returns nil and rolled back otherwise. An error of a database
// that refuses writes (a hot standby) wraps ErrReadOnly.
func (s *Storage) WriteTx(ctx context.Context, p *Project, fn func(*sql.Tx) error) error {
	return readOnly(s.tx(ctx, p, false, fn))
}

func (s *Storage) tx(ctx context.Context, p *Project, readOnly bool, fn func(*sql.Tx) error) error {
	if p == nil || p.db == nil {
		return errors.New("server: no project database")
	}
	defer recordEngineTime(ctx, time.Now())
	committing := false
	err := store.TimedTx(ctx, p.db, p.dialect, readOnly, func(tx *sql.Tx) error {
		err := fn(tx)
		committing = err == nil
		return err
	})
	if committing && !readOnly {
		// Whether or not the commit succeeded, the data may have changed.
		p.version.Add(1)
	}
	if err != nil {
		return err
	}
	if !readOnly {
		p.writes.Add(1)
	}
	return nil
}

// Add adds a project served from db with dialect d (the tables of the
// reference schema must exist). close, when not nil, runs on Close.
func (s *Storage) Add(p *Project, db *sql.DB, d compile.Dialect, close func() error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errors.New("server: storage closed")
	}
	for _, q := range s.projects {
		if q.ID == p.ID {
			return fmt.Errorf("server: two projects with id %d", p.ID)
		}
	}
	p.db, p.dialect, p.mapping = db, d, s.mappingLocked()
	s.projects = append(s.projects, p)
	slices.SortFunc(s.projects, func(a, b *Project) int { return int(min(max(a.ID-b.ID, -1), 1)) })
	if close != nil {
		s.closers = append(s.closers, close)
	}
	return nil
}

// OnClose registers f to run when the storage closes (after the
// databases, in reverse order of registration).
func (s *Storage) OnClose(f func() error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closers = append(s.closers, f)
}

// Close closes every database and removes the scratch schemas and files.
func (s *Storage) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	var errs []error
	for i := len(s.closers) - 1; i >= 0; i-- {
		errs = append(errs, s.closers[i]())
	}
	s.closers, s.projects = nil, nil
	return errors.Join(errs...)
}

// projectOf describes data as a served project with the given id.
func projectOf(id int64, data *schema.Project) *Project {
	p := &Project{ID: id, Name: data.Name, SourceLanguage: data.SourceLanguage,
		Users: data.UserIDs(), Logins: data.UserLogins()}
	if p.Name == "" {
		p.Name = "project-" + strconv.FormatInt(id, 10)
	}
	add := func(list *[]string, c string) {
		if c != "" && !slices.Contains(*list, c) {
			*list = append(*list, c)
		}
	}
	for _, c := range data.TargetLanguages {
		add(&p.TargetLanguages, c)
	}
	for _, l := range data.Languages {
		if l.ID != data.SourceLanguage {
			add(&p.TargetLanguages, l.ID)
		}
	}
	// Languages that only translations name are served too.
	for _, s := range data.Strings {
		for _, t := range s.Translations {
			add(&p.TargetLanguages, t.Language)
		}
	}
	add(&p.Languages, data.SourceLanguage)
	for _, c := range p.TargetLanguages {
		add(&p.Languages, c)
	}
	p.LanguageInfo = make(map[string]schema.LanguageInfo, len(data.Languages))
	for _, l := range data.Languages {
		p.LanguageInfo[l.ID] = l
	}
	p.Created, p.Updated = dataDates(data)
	return p
}

// DefaultSQLiteCache is the page cache and memory map of croql serve's
// SQLite connections (--sqlite-cache, --sqlite-mmap).
func DefaultSQLiteCache() store.SQLiteCache {
	return store.SQLiteCache{PageCacheBytes: store.DefaultSQLitePageCache, MmapBytes: store.DefaultSQLiteMmap}
}

// LoadSQLite stores each project in an embedded SQLite database of its
// own, a file in dir (a fresh temporary directory, removed on Close, when
// dir is empty). Project i of data gets id i+1. The connections have
// DefaultSQLiteCache.
func LoadSQLite(ctx context.Context, dir string, data ...*schema.Project) (*Storage, error) {
	return loadSQLiteData(ctx, dir, DefaultSQLiteCache(), data)
}

func loadSQLiteData(ctx context.Context, dir string, cache store.SQLiteCache, data []*schema.Project) (*Storage, error) {
	loads := make([]loadFunc, len(data))
	for i, d := range data {
		loads[i] = func(ctx context.Context, db *store.DB, m *mapping.Mapping) (*schema.Project, error) {
			return d, store.Load(ctx, db, m, d)
		}
	}
	return dataSources(loadSQLite(ctx, dir, cache, loads))(data)
}

// LoadSQLiteFiles is LoadSQLite streaming project files (JSON or NDJSON)
// into the databases as `croql load` does, object by object: memory does
// not grow with the files.
func LoadSQLiteFiles(ctx context.Context, dir string, files ...string) (*Storage, error) {
	return loadSQLiteFiles(ctx, dir, DefaultSQLiteCache(), files)
}

func loadSQLiteFiles(ctx context.Context, dir string, cache store.SQLiteCache, files []string) (*Storage, error) {
	return fileSources(loadSQLite(ctx, dir, cache, fileLoads(files)))(files)
}

// loadFunc stores one project in db and returns it (its head at least:
// name, languages, users).
type loadFunc func(ctx context.Context, db *store.DB, m *mapping.Mapping) (*schema.Project, error)

// fileLoads streams each file into its database.
func fileLoads(files []string) []loadFunc {
	loads := make([]loadFunc, len(files))
	for i, name := range files {
		loads[i] = func(ctx context.Context, db *store.DB, m *mapping.Mapping) (*schema.Project, error) {
			f, err := os.Open(name)
			if err != nil {
				return nil, fmt.Errorf("server: %w", err)
			}
			defer f.Close()
			st, err := store.LoadFile(ctx, db, f, schema.ReadOptions{}, nil)
			if err != nil {
				return nil, fmt.Errorf("server: %s: %w", name, err)
			}
			if st.Head == nil {
				return nil, fmt.Errorf("server: %s: no project", name)
			}
			return st.Head, nil
		}
	}
	return loads
}

// describe is the served project of a load: the head's identity and
// languages, and, from the database, the users and every language a
// translation names (a streamed load keeps no objects in memory).
func describe(ctx context.Context, id int64, head *schema.Project, db *store.DB, m *mapping.Mapping) (*Project, error) {
	p := projectOf(id, head)
	dir, err := readDirectory(ctx, db.SQL, db.Dialect, m)
	if err != nil {
		return nil, err
	}
	if p.Created.IsZero() { // a streamed load: the head has no strings
		p.Created, p.Updated = dir.Created, dir.Updated
	}
	if p.Users == nil {
		p.Users = map[string]int64{}
	}
	if p.Logins == nil {
		p.Logins = map[int64]string{}
	}
	for login, uid := range dir.Users {
		if _, ok := p.Users[login]; !ok {
			p.Users[login], p.Logins[uid] = uid, login
		}
	}
	for _, c := range dir.TargetLanguages {
		if c != p.SourceLanguage && !slices.Contains(p.TargetLanguages, c) {
			p.TargetLanguages = append(p.TargetLanguages, c)
		}
		if !slices.Contains(p.Languages, c) {
			p.Languages = append(p.Languages, c)
		}
	}
	return p, nil
}

func loadSQLite(ctx context.Context, dir string, cache store.SQLiteCache, loads []loadFunc) (_ *Storage, err error) {
	s := &Storage{}
	defer func() {
		if err != nil {
			err = errors.Join(err, s.Close())
		}
	}()
	if dir == "" {
		tmp, err := os.MkdirTemp("", "croql-serve-")
		if err != nil {
			return nil, fmt.Errorf("server: %w", err)
		}
		s.OnClose(func() error { return os.RemoveAll(tmp) })
		dir = tmp
	} else if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	for i, load := range loads {
		id := int64(i + 1)
		file := filepath.Join(dir, "project-"+strconv.FormatInt(id, 10)+".db")
		if err := os.Remove(file); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("server: %w", err)
		}
		// The database files go with the storage, also in a given dir.
		s.OnClose(func() error {
			var errs []error
			for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
				if err := os.Remove(file + suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
					errs = append(errs, err)
				}
			}
			return errors.Join(errs...)
		})
		// The initial build runs in the rollback journal mode: one
		// transaction into a new file journals next to nothing, where WAL
		// would write every page twice.
		ldb, err := store.OpenTarget(ctx, "sqlite", "file:"+file, "")
		if err != nil {
			return nil, err
		}
		head, err := load(ctx, ldb, s.Mapping())
		if err == nil {
			_, err = ldb.SQL.ExecContext(ctx, "PRAGMA journal_mode = WAL")
		}
		if err = errors.Join(err, ldb.Close()); err != nil {
			return nil, fmt.Errorf("server: loading project %d: %w", id, err)
		}
		// Readers in WAL mode never wait for each other; busy_timeout
		// covers the moment a connection opens while another writes.
		db, err := store.OpenSQLite(cache.DSN("file:" + file + "?_pragma=journal_mode(wal)&_pragma=busy_timeout(5000)"))
		if err != nil {
			return nil, err
		}
		p, err := describe(ctx, id, head, db, s.Mapping())
		if err != nil {
			db.Close()
			return nil, err
		}
		// SQLite runs each query on the calling goroutine's CPU: more
		// connections than twice the CPUs only queue inside the engine.
		conns := 2 * runtime.GOMAXPROCS(0)
		db.SQL.SetMaxOpenConns(conns)
		db.SQL.SetMaxIdleConns(conns)
		p.Scratch = file
		if err := s.Add(p, db.SQL, db.Dialect, db.Close); err != nil {
			db.Close()
			return nil, err
		}
	}
	return s, nil
}

// LoadServer loads each project into a scratch schema (PostgreSQL) or
// database (MySQL/MariaDB) of its own on the server at dsn; Close drops
// them. Project i of data gets id i+1.
func LoadServer(ctx context.Context, engineName, dsn string, data ...*schema.Project) (*Storage, error) {
	loads := make([]loadFunc, len(data))
	for i, d := range data {
		loads[i] = func(ctx context.Context, db *store.DB, m *mapping.Mapping) (*schema.Project, error) {
			return d, store.Load(ctx, db, m, d)
		}
	}
	return dataSources(loadServer(ctx, engineName, dsn, loads))(data)
}

// LoadServerFiles is LoadServer streaming project files into the scratch
// schemas as `croql load` does.
func LoadServerFiles(ctx context.Context, engineName, dsn string, files ...string) (*Storage, error) {
	return fileSources(loadServer(ctx, engineName, dsn, fileLoads(files)))(files)
}

func loadServer(ctx context.Context, engineName, dsn string, loads []loadFunc) (_ *Storage, err error) {
	s := &Storage{}
	defer func() {
		if err != nil {
			err = errors.Join(err, s.Close())
		}
	}()
	for i, load := range loads {
		id := int64(i + 1)
		db, err := store.Open(ctx, engineName, dsn)
		if err != nil {
			return nil, unavailable(err)
		}
		head, err := load(ctx, db, s.Mapping())
		if err != nil {
			db.Close()
			return nil, fmt.Errorf("server: loading project %d: %w", id, err)
		}
		p, err := describe(ctx, id, head, db, s.Mapping())
		if err != nil {
			db.Close()
			return nil, err
		}
		p.Scratch = db.Schema
		if err := s.Add(p, db.SQL, db.Dialect, db.Close); err != nil {
			db.Close()
			return nil, err
		}
	}
	return s, nil
}

// OpenExisting serves the data already in the reference schema at dsn
// (loaded with croql load or compile.Load) as one project with id 1 named
// name (when empty, the name the load recorded). The project's record
// that the load wrote (store.ReadProject: its name, languages and users)
// serves the project as the data file it was loaded from; a store without
// one is described from its users table and the languages of its
// translations. Nothing is created or dropped. A store whose
// load did not complete (store.CheckLoaded) is refused, never served
// as empty. engineName, when not empty, must be the engine of the DSN.
func OpenExisting(ctx context.Context, engineName, dsn, name string) (_ *Storage, err error) {
	edb, err := store.OpenLoaded(ctx, engineName, dsn)
	if err != nil {
		return nil, unavailable(err)
	}
	db, d := edb.SQL, edb.Dialect
	s := &Storage{}
	defer func() {
		if err != nil {
			err = errors.Join(err, edb.Close())
		}
	}()
	head, err := store.ReadProject(ctx, db, d)
	if err != nil {
		return nil, err
	}
	var p *Project
	if head != nil {
		// The project's record of the load: served as the data file
		// it was loaded from is.
		p, err = describe(ctx, 1, head, edb, s.Mapping())
	} else {
		p, err = readDirectory(ctx, db, d, s.Mapping())
	}
	if err != nil {
		return nil, err
	}
	p.ID = 1
	if name != "" {
		p.Name = name
	} else if p.Name == "" {
		p.Name = "project-1"
	}
	if err := s.Add(p, db, d, edb.Close); err != nil {
		return nil, err
	}
	return s, nil
}

// unavailable adds what to do to an error of a database that cannot be
// reached.
func unavailable(err error) error {
	if c, _ := store.Classify(err); c == store.Unavailable {
		return fmt.Errorf("server: the database is unavailable (is it running, and is the DSN's host and port right?): %w", err)
	}
	return err
}

// readDirectory reads the users and the translation languages of the
// reference schema.
func readDirectory(ctx context.Context, db *sql.DB, d compile.Dialect, m *mapping.Mapping) (*Project, error) {
	users, err := store.ReadUsers(ctx, db, d, m)
	if err != nil {
		return nil, fmt.Errorf("server: reading users: %w", err)
	}
	p := &Project{Users: map[string]int64{}, Logins: map[int64]string{}}
	for _, u := range users {
		p.Users[u.Login], p.Logins[u.ID] = u.ID, u.Login
	}
	t, err := TablesOf(d, m)
	if err != nil {
		return nil, err
	}
	col := d.Quote(t.TrLang)
	rows, err := db.QueryContext(ctx, "SELECT DISTINCT "+col+" FROM "+d.Quote(t.Tr.Table())+" ORDER BY "+col)
	if err != nil {
		return nil, fmt.Errorf("server: reading languages: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var code string
		if err := rows.Scan(&code); err != nil {
			return nil, fmt.Errorf("server: reading languages: %w", err)
		}
		p.TargetLanguages = append(p.TargetLanguages, code)
	}
	p.Languages = slices.Clone(p.TargetLanguages)
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("server: reading languages: %w", err)
	}
	// The project's dates: its earliest and latest string.
	added, updated := d.Quote(t.StrAdded), d.Quote(t.StrUpdated)
	var first, last, lastUpdate sql.NullInt64
	err = db.QueryRowContext(ctx, "SELECT MIN("+added+"), MAX("+added+"), MAX("+updated+") FROM "+d.Quote(t.Str.Table())).Scan(&first, &last, &lastUpdate)
	if err != nil {
		return nil, fmt.Errorf("server: reading the project's dates: %w", err)
	}
	if first.Valid {
		p.Created = schema.Time(first.Int64).Std()
		p.Updated = schema.Time(max(last.Int64, lastUpdate.Int64)).Std()
	}
	return p, nil
}

// dataDates are the earliest and the latest date of the project's strings.
func dataDates(data *schema.Project) (first, last time.Time) {
	for _, s := range data.Strings {
		for _, t := range []*schema.Time{&s.Added, s.Updated} {
			if t == nil {
				continue
			}
			v := t.Std()
			if first.IsZero() || v.Before(first) {
				first = v
			}
			if v.After(last) {
				last = v
			}
		}
	}
	return first, last
}
