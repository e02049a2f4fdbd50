package postimport

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

// ModuleType is the key of post-import modules in the descriptor's
// `modules` object.
const ModuleType = "file-post-import"

// SignatureContentBytes is how much of a file signaturePatterns.fileContent
// is matched against: the first 64 KiB.
const SignatureContentBytes = 64 << 10

// Modules is the part of an app descriptor's `modules` object this package
// knows.
type Modules struct {
	FilePostImport []Module `json:"file-post-import,omitempty"`
}

// Module is one `file-post-import` module entry (seed 2.2).
type Module struct {
	// Key identifies the module within the app.
	Key string `json:"key"`
	// URL is relative to the app's base address, e.g. "/post-import".
	URL string `json:"url"`
	// SignaturePatterns choose the files the module handles; nil means all.
	SignaturePatterns *SignaturePatterns `json:"signaturePatterns,omitempty"`
}

// SignaturePatterns are regular expressions (Go RE2 syntax) matched against
// the file name and the first 64 KiB of the file content. An empty pattern
// places no constraint.
type SignaturePatterns struct {
	FileName    string `json:"fileName,omitempty"`
	FileContent string `json:"fileContent,omitempty"`
}

// ErrInvalidModule reports a descriptor entry that cannot be used.
var ErrInvalidModule = errors.New("invalid post-import module")

var moduleKey = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]*$`)

// Validate checks the entry: a key of letters, digits, '-' and '_'; a URL
// that is a path relative to the app (starting with "/", no scheme, host,
// or "..") and patterns that compile.
func (m Module) Validate() error {
	if !moduleKey.MatchString(m.Key) {
		return fmt.Errorf("%w: key %q must be letters, digits, '-' or '_'", ErrInvalidModule, m.Key)
	}
	u, err := url.Parse(m.URL)
	if err != nil {
		return fmt.Errorf("%w: url %q: %w", ErrInvalidModule, m.URL, err)
	}
	if !strings.HasPrefix(m.URL, "/") || strings.HasPrefix(m.URL, "//") || u.Scheme != "" || u.Host != "" ||
		strings.Contains(u.Path, "..") {
		return fmt.Errorf("%w: url %q must be a path relative to the app, starting with /", ErrInvalidModule, m.URL)
	}
	if _, err := m.Signature(); err != nil {
		return err
	}
	return nil
}

// Signature compiles the entry's patterns.
func (m Module) Signature() (*Signature, error) {
	var p SignaturePatterns
	if m.SignaturePatterns != nil {
		p = *m.SignaturePatterns
	}
	return p.Compile()
}

// Signature is a compiled SignaturePatterns.
type Signature struct {
	name, content *regexp.Regexp
}

// Compile compiles the patterns.
func (p SignaturePatterns) Compile() (*Signature, error) {
	var s Signature
	var err error
	if p.FileName != "" {
		if s.name, err = regexp.Compile(p.FileName); err != nil {
			return nil, fmt.Errorf("%w: signaturePatterns.fileName: %w", ErrInvalidModule, err)
		}
	}
	if p.FileContent != "" {
		if s.content, err = regexp.Compile(p.FileContent); err != nil {
			return nil, fmt.Errorf("%w: signaturePatterns.fileContent: %w", ErrInvalidModule, err)
		}
	}
	return &s, nil
}

// Match reports whether a file matches: the name pattern anywhere in the
// file name and the content pattern anywhere in the first 64 KiB of the
// content. Both must match when both are set.
func (s *Signature) Match(fileName string, content []byte) bool {
	if s == nil {
		return true
	}
	if s.name != nil && !s.name.MatchString(fileName) {
		return false
	}
	if s.content != nil {
		if len(content) > SignatureContentBytes {
			content = content[:SignatureContentBytes]
		}
		if !s.content.Match(content) {
			return false
		}
	}
	return true
}

// Select returns the first module whose signature matches the file, as the
// platform picks the module for a file.
func Select(modules []Module, fileName string, content []byte) (Module, bool, error) {
	for _, m := range modules {
		sig, err := m.Signature()
		if err != nil {
			return Module{}, false, fmt.Errorf("module %q: %w", m.Key, err)
		}
		if sig.Match(fileName, content) {
			return m, true, nil
		}
	}
	return Module{}, false, nil
}
