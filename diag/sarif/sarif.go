// Package sarif writes diagnostics as a SARIF 2.1.0 log, the format CI
// code scanning (GitHub, GitLab, Azure DevOps) and many editors import.
//
// Each query is an artifact of the run. A query read from a file is named
// by its path (a relative URI reference); a query without a file (the
// command line's <arg> or <stdin>) is carried in the log itself, as the
// artifact's contents, and its results point at it by index. Regions give
// lines and columns counted in Unicode code points (the run's columnKind),
// and the exact byte offset and length. Suggested fixes ("did you mean")
// become SARIF fixes that replace the span's bytes.
package sarif

import (
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/croql/croql/diag"
)

// Version is the SARIF version the log conforms to, and SchemaURI its
// schema.
const (
	Version   = "2.1.0"
	SchemaURI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)

// Input is one query and its diagnostics.
type Input struct {
	// Name is the path of the file the query was read from, or a name in
	// angle brackets such as "<arg>" or "<stdin>" for a query that has no
	// file; such a query is carried in the log.
	Name string
	// Text is the query.
	Text string
	// Diags are its diagnostics.
	Diags diag.List
}

// Tool describes the tool that produced the diagnostics.
type Tool struct {
	Name           string // "croql"
	Version        string // the module version, e.g. v0.2.0
	InformationURI string
}

// Write writes one SARIF log with one run of tool over inputs to w.
func Write(w io.Writer, tool Tool, inputs ...Input) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(Build(tool, inputs...)); err != nil {
		return fmt.Errorf("sarif: %w", err)
	}
	return nil
}

// Build returns the SARIF log of tool over inputs, ready for
// encoding/json.
func Build(tool Tool, inputs ...Input) *Log {
	r := Run{
		Tool:       ToolSection{Driver: Driver{Name: tool.Name, Version: tool.Version, InformationURI: tool.InformationURI, Rules: []Rule{}}},
		Artifacts:  make([]Artifact, 0, len(inputs)),
		Results:    []Result{},
		ColumnKind: "unicodeCodePoints",
	}
	ruleIndex := map[string]int{}
	for i, in := range inputs {
		loc := ArtifactLocation{Index: new(int)}
		*loc.Index = i
		art := Artifact{SourceLanguage: "croql", Length: len(in.Text)}
		if uri, ok := fileURI(in.Name); ok {
			loc.URI = uri
			art.Location = &ArtifactLocation{URI: uri}
		} else {
			art.Contents = &ArtifactContent{Text: in.Text}
			art.Description = &Message{Text: "the query " + in.Name}
		}
		r.Artifacts = append(r.Artifacts, art)
		src := diag.NewNamedSource(in.Name, in.Text)
		for _, d := range in.Diags {
			id := d.Code + "/" + d.Rule
			idx, ok := ruleIndex[id]
			if !ok {
				idx = len(r.Tool.Driver.Rules)
				ruleIndex[id] = idx
				r.Tool.Driver.Rules = append(r.Tool.Driver.Rules, Rule{ID: id, Name: d.Rule,
					Properties: map[string]any{"class": d.Code}})
			}
			msg := d.Message
			if d.Hint != "" {
				msg += " Hint: " + d.Hint
			}
			res := Result{RuleID: id, RuleIndex: idx, Level: level(d.Severity), Message: Message{Text: msg},
				Locations: []Location{{PhysicalLocation: PhysicalLocation{ArtifactLocation: loc, Region: region(src, d.Span)}}}}
			for _, f := range d.Fixes {
				res.Fixes = append(res.Fixes, Fix{
					Description: &Message{Text: "did you mean: " + f.Text},
					ArtifactChanges: []ArtifactChange{{ArtifactLocation: loc, Replacements: []Replacement{{
						DeletedRegion:   Region{ByteOffset: ptr(f.Span.Start), ByteLength: ptr(max(0, f.Span.Len()))},
						InsertedContent: &ArtifactContent{Text: f.Text},
					}}}},
				})
			}
			r.Results = append(r.Results, res)
		}
	}
	return &Log{Schema: SchemaURI, Version: Version, Runs: []Run{r}}
}

// fileURI returns the relative URI reference of a file name, false for a
// name in angle brackets (no file) or an empty one.
func fileURI(name string) (string, bool) {
	if name == "" || strings.HasPrefix(name, "<") && strings.HasSuffix(name, ">") {
		return "", false
	}
	p := filepath.ToSlash(name)
	if filepath.IsAbs(name) {
		return (&url.URL{Scheme: "file", Path: p}).String(), true
	}
	return (&url.URL{Path: p}).String(), true
}

func region(src *diag.Source, sp diag.Span) Region {
	text := src.Text()
	start, end := max(0, min(sp.Start, len(text))), max(0, min(sp.End, len(text)))
	end = max(start, end)
	s, e := src.Position(start), src.Position(end)
	r := Region{StartLine: s.Line, StartColumn: s.Column, EndLine: e.Line, EndColumn: e.Column,
		ByteOffset: ptr(start), ByteLength: ptr(end - start)}
	if end > start {
		r.Snippet = &ArtifactContent{Text: text[start:end]}
	}
	return r
}

func level(s diag.Severity) string {
	switch s {
	case diag.Error:
		return "error"
	case diag.Warning:
		return "warning"
	}
	return "note"
}

func ptr(n int) *int { return &n }

// The parts of a SARIF log croql writes (a subset of SARIF 2.1.0).
type (
	Log struct {
		Schema  string `json:"$schema"`
		Version string `json:"version"`
		Runs    []Run  `json:"runs"`
	}
	Run struct {
		Tool       ToolSection `json:"tool"`
		Artifacts  []Artifact  `json:"artifacts"`
		Results    []Result    `json:"results"`
		ColumnKind string      `json:"columnKind"`
	}
	ToolSection struct {
		Driver Driver `json:"driver"`
	}
	Driver struct {
		Name           string `json:"name"`
		Version        string `json:"version,omitempty"`
		InformationURI string `json:"informationUri,omitempty"`
		Rules          []Rule `json:"rules"`
	}
	Rule struct {
		ID         string         `json:"id"`
		Name       string         `json:"name,omitempty"`
		Properties map[string]any `json:"properties,omitempty"`
	}
	Artifact struct {
		Location       *ArtifactLocation `json:"location,omitempty"`
		Description    *Message          `json:"description,omitempty"`
		Contents       *ArtifactContent  `json:"contents,omitempty"`
		Length         int               `json:"length"`
		SourceLanguage string            `json:"sourceLanguage,omitempty"`
	}
	ArtifactLocation struct {
		URI   string `json:"uri,omitempty"`
		Index *int   `json:"index,omitempty"`
	}
	ArtifactContent struct {
		Text string `json:"text"`
	}
	Message struct {
		Text string `json:"text"`
	}
	Result struct {
		RuleID    string     `json:"ruleId"`
		RuleIndex int        `json:"ruleIndex"`
		Level     string     `json:"level"`
		Message   Message    `json:"message"`
		Locations []Location `json:"locations"`
		Fixes     []Fix      `json:"fixes,omitempty"`
	}
	Location struct {
		PhysicalLocation PhysicalLocation `json:"physicalLocation"`
	}
	PhysicalLocation struct {
		ArtifactLocation ArtifactLocation `json:"artifactLocation"`
		Region           Region           `json:"region"`
	}
	Region struct {
		StartLine   int              `json:"startLine,omitempty"`
		StartColumn int              `json:"startColumn,omitempty"`
		EndLine     int              `json:"endLine,omitempty"`
		EndColumn   int              `json:"endColumn,omitempty"`
		ByteOffset  *int             `json:"byteOffset,omitempty"`
		ByteLength  *int             `json:"byteLength,omitempty"`
		Snippet     *ArtifactContent `json:"snippet,omitempty"`
	}
	Fix struct {
		Description     *Message         `json:"description,omitempty"`
		ArtifactChanges []ArtifactChange `json:"artifactChanges"`
	}
	ArtifactChange struct {
		ArtifactLocation ArtifactLocation `json:"artifactLocation"`
		Replacements     []Replacement    `json:"replacements"`
	}
	Replacement struct {
		DeletedRegion   Region           `json:"deletedRegion"`
		InsertedContent *ArtifactContent `json:"insertedContent,omitempty"`
	}
)
