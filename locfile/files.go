package locfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// ReadOptions tune [ReadPaths].
type ReadOptions struct {
	// Parsers are the formats read; nil means [Parsers].
	Parsers []Parser
	Limits  Limits
}

// HasGlob reports whether s has a glob metacharacter (*, ?, [).
func HasGlob(s string) bool { return strings.ContainsAny(s, "*?[") }

// ReadPaths reads the localization files arg names: one file, a
// directory (every file below it that a parser reads, hidden directories
// skipped; files of a directory no parser reads are left out), or a glob
// pattern of filepath.Match (every file matched that a parser reads, a
// matched directory walked as above). Files are read in lexical order of
// their paths. It also returns the latest modification time of the files
// read.
func ReadPaths(arg string, opts ReadOptions) ([]*File, time.Time, error) {
	ps := opts.Parsers
	if ps == nil {
		ps = Parsers()
	}
	var names []string
	var explicit []string // named directly: a file no parser reads is an error
	roots := []string{arg}
	if HasGlob(arg) {
		if _, err := os.Stat(arg); err != nil {
			m, err := filepath.Glob(arg)
			if err != nil {
				return nil, time.Time{}, fmt.Errorf("%s: %w", arg, err)
			}
			if len(m) == 0 {
				return nil, time.Time{}, fmt.Errorf("%s: %w: the pattern matches no file", arg, ErrNoFiles)
			}
			roots = m
		}
	}
	for _, root := range roots {
		st, err := os.Stat(root)
		if err != nil {
			return nil, time.Time{}, fmt.Errorf("reading the data: %w", err)
		}
		if !st.IsDir() {
			names = append(names, root)
			if len(roots) == 1 {
				explicit = append(explicit, root)
			}
			continue
		}
		err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if p != root && strings.HasPrefix(d.Name(), ".") {
					return filepath.SkipDir
				}
				return nil
			}
			if d.Type().IsRegular() {
				names = append(names, p)
			}
			return nil
		})
		if err != nil {
			return nil, time.Time{}, fmt.Errorf("reading the data: %w", err)
		}
	}
	slices.Sort(names)
	names = slices.Compact(names)
	var (
		files  []*File
		latest time.Time
	)
	for _, name := range names {
		f, mod, err := readPath(name, ps, opts.Limits)
		if errors.Is(err, ErrNoParser) && !slices.Contains(explicit, name) {
			continue
		}
		if err != nil {
			return nil, time.Time{}, err
		}
		files = append(files, f)
		if mod.After(latest) {
			latest = mod
		}
	}
	if len(files) == 0 {
		return nil, time.Time{}, fmt.Errorf("%s: %w that a parser reads", arg, ErrNoFiles)
	}
	return files, latest, nil
}

func readPath(name string, ps []Parser, lim Limits) (*File, time.Time, error) {
	fh, err := os.Open(name)
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("reading the data: %w", err)
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("reading the data: %w", err)
	}
	head := make([]byte, headSize)
	n, err := io.ReadFull(fh, head)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return nil, time.Time{}, fmt.Errorf("%s: %w", name, err)
	}
	if _, err := Find(ps, name, head[:n]); err != nil {
		return nil, time.Time{}, err
	}
	if _, err := fh.Seek(0, io.SeekStart); err != nil {
		return nil, time.Time{}, fmt.Errorf("%s: %w", name, err)
	}
	f, err := Read(name, fh, ps, lim)
	return f, st.ModTime(), err
}
