package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/croql/croql/locfile"
	"github.com/croql/croql/schema"
)

// locFlags are the languages of localization files given as --data that
// the files do not say.
type locFlags struct{ source, target string }

// addLocFlags defines --source-language and --target-language on cmd.
func addLocFlags(cmd *cobra.Command, l *locFlags) {
	cmd.Flags().StringVar(&l.source, "source-language", "", "source language of localization files given as --data (default: what the files say, else en)")
	cmd.Flags().StringVar(&l.target, "target-language", "", "target language of a bilingual localization file (XLIFF, PO) that names none in its content or path")
}

// dataHelp is the help of --data.
const dataHelp = "project file, JSON or NDJSON (docs/data-format.md), or localization files: one file, a directory or a glob of XLIFF, PO, .strings, .stringsdict, ARB, JSON or Android XML (docs/formats.md); - reads stdin"

// dataExts are the file name endings --data completes.
var dataExts = []string{"json", "ndjson", "jsonl", "xlf", "xliff", "po", "pot", "strings", "stringsdict", "arb", "xml"}

// isLocData reports whether --data name names localization files, not a
// project file: a directory, a glob that names no file, or a file a
// localization parser reads. A .json file is a project file when it is
// one: its first line is an NDJSON line, or its top-level object has a
// sourceLanguageId member, an array or a value that is not a string or an
// object (key-value JSON has only strings and objects).
func isLocData(name string) bool {
	if name == "" || name == "-" {
		return false
	}
	st, err := os.Stat(name)
	if err != nil {
		return locfile.HasGlob(name)
	}
	if st.IsDir() {
		return true
	}
	switch strings.ToLower(filepath.Ext(name)) {
	case ".ndjson", ".jsonl":
		return false
	case ".json":
		return !isProjectJSON(name)
	}
	f, err := os.Open(name)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 4096)
	n, _ := io.ReadFull(f, head)
	_, err = locfile.Find(locfile.Parsers(), name, head[:n])
	return err == nil
}

func isProjectJSON(name string) bool {
	f, err := os.Open(name)
	if err != nil {
		return true // the project reader reports it
	}
	defer f.Close()
	br := bufio.NewReader(f)
	first, _ := br.Peek(4096)
	if i := bytes.IndexByte(first, '\n'); i >= 0 {
		first = first[:i]
	}
	var kind struct {
		Kind *string `json:"kind"`
	}
	if json.Unmarshal(first, &kind) == nil && kind.Kind != nil {
		return true
	}
	dec := json.NewDecoder(br)
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return true
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return true
		}
		if key == "sourceLanguageId" {
			return true
		}
		tok, err := dec.Token()
		if err != nil {
			return true
		}
		switch t := tok.(type) {
		case string:
		case json.Delim:
			if t != '{' {
				return true
			}
			if !skipObject(dec) {
				return true
			}
		default:
			return true
		}
	}
	return false
}

// skipObject reads to the end of an object whose '{' was read; false when
// it holds an array or a value that is not a string or an object.
func skipObject(dec *json.Decoder) bool {
	for depth := 1; depth > 0; {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{':
				depth++
			case '}':
				depth--
			default:
				return false
			}
		case string:
		default:
			return false
		}
	}
	return true
}

// checkLocFlags refuses the language flags when the data is not
// localization files: a project file says its languages.
func (c *cli) checkLocFlags() error {
	if c.loc.source != "" || c.loc.target != "" {
		return usageErrorf("--source-language and --target-language are for localization files given as --data; a project file says its languages")
	}
	return nil
}

// readLocProject reads the localization files --data names into a
// project.
func (c *cli) readLocProject(name string) (*schema.Project, error) {
	files, mod, err := locfile.ReadPaths(name, locfile.ReadOptions{})
	if err != nil {
		return nil, err
	}
	p, err := locfile.Build(files, locfile.Options{
		Name:           filepath.Base(strings.TrimRight(name, `/\`)),
		SourceLanguage: c.loc.source,
		TargetLanguage: c.loc.target,
		Added:          schema.TimeOf(mod),
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return p, nil
}

// openLocData reads localization files into a project and hands it on in
// the NDJSON form, written through a pipe as it is read, for the readers
// that stream a project file. The returned function closes the pipe,
// which ends the writer if the reader stopped early.
func (c *cli) openLocData(name string) (io.Reader, int64, func(), error) {
	p, err := c.readLocProject(name)
	if err != nil {
		return nil, -1, nil, err
	}
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(p.WriteNDJSON(pw)) }()
	return pr, -1, func() { pr.Close() }, nil
}
