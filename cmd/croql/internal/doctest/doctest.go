// Package doctest finds the examples of croql's Markdown documentation
// (README.md and docs/*.md) so that a test can run them: an example that
// stops working then fails CI.
//
// The convention, by the info string of a fenced code block
// (docs/CONTRIBUTING.md, "Examples in the documentation"):
//
//   - sh: a shell script, run by bash from the repository root with
//     `set -euo pipefail`; it must exit 0.
//   - go: a complete Go program (package main), run with go run in a
//     scratch module of the workspace; it must exit 0, and when it has an
//     "// Output:" comment, print what the comment lines after it say (as
//     a Go example).
//   - console check: a transcript; each "$ command" line is run as above and
//     what it prints (stdout and stderr) must equal the lines under it.
//   - sh no-ci, go no-ci: shown, not run; the paragraph before the block
//     says why.
//   - console, text and every other language (json, js, toml, …): shown,
//     not run.
//
// A block without an info string is an error, so that every example says
// whether it runs.
package doctest

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// Kind is what the test does with a block.
type Kind int

// The kinds of blocks.
const (
	Shown      Kind = iota // not run: console, text, json, no-ci, …
	Shell                  // sh: run by bash
	GoProgram              // go: a complete program, go run
	Transcript             // console check: commands and their output
)

// Block is one fenced code block of a Markdown file.
type Block struct {
	File string // the file's name, as given to Blocks
	Line int    // line of the opening fence, from 1
	Info string // the whole info string ("sh no-ci")
	Kind Kind
	Text string // the contents, ending in a newline unless empty
	// Before is the text of the paragraph just before the block, in the
	// same container; empty when the block follows no paragraph.
	Before string
}

func (b Block) String() string { return fmt.Sprintf("%s:%d (```%s)", b.File, b.Line, b.Info) }

// NoCI reports whether the block is marked not to run in CI.
func (b Block) NoCI() bool {
	f := strings.Fields(b.Info)
	return len(f) > 1 && f[1] == "no-ci"
}

// Blocks returns the fenced code blocks of the Markdown src, in order,
// and an error for each block whose info string the convention does not
// know.
// Indented code blocks are ignored (the documentation uses fences only).
func Blocks(file string, src []byte) ([]Block, error) {
	doc := goldmark.DefaultParser().Parse(text.NewReader(src))
	var (
		out  []Block
		errs []error
	)
	err := ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		fc, ok := n.(*ast.FencedCodeBlock)
		if !entering || !ok {
			return ast.WalkContinue, nil
		}
		b := Block{File: file}
		if fc.Info != nil {
			b.Info = strings.TrimSpace(string(fc.Info.Segment.Value(src)))
			b.Line = lineOf(src, fc.Info.Segment.Start)
		} else {
			b.Line = fenceLine(src, fc)
		}
		var sb strings.Builder
		lines := fc.Lines()
		for i := 0; i < lines.Len(); i++ {
			seg := lines.At(i)
			sb.Write(seg.Value(src))
		}
		b.Text = sb.String()
		if p := fc.PreviousSibling(); p != nil && (p.Kind() == ast.KindParagraph || p.Kind() == ast.KindTextBlock) {
			b.Before = strings.TrimSpace(string(nodeText(p, src)))
		}
		kind, err := kindOf(b.Info)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s:%d: %w", file, b.Line, err))
		}
		b.Kind = kind
		out = append(out, b)
		return ast.WalkSkipChildren, nil
	})
	if err != nil {
		return nil, err
	}
	return out, errors.Join(errs...)
}

// kindOf reads an info string.
func kindOf(info string) (Kind, error) {
	f := strings.Fields(info)
	if len(f) == 0 {
		return Shown, fmt.Errorf("a fenced block without an info string: say sh, go, console, text (or the language shown), or sh no-ci with the reason before it")
	}
	lang, rest := f[0], f[1:]
	if len(rest) > 1 {
		return Shown, fmt.Errorf("info string %q: at most one word after the language (no-ci, or check after console)", info)
	}
	if len(rest) == 1 {
		switch {
		case rest[0] == "no-ci" && (lang == "sh" || lang == "go"):
			return Shown, nil
		case rest[0] == "check" && lang == "console":
			return Transcript, nil
		}
		return Shown, fmt.Errorf("info string %q: only sh no-ci, go no-ci and console check take a second word", info)
	}
	switch lang {
	case "sh":
		return Shell, nil
	case "go":
		return GoProgram, nil
	case "bash", "shell", "zsh":
		return Shown, fmt.Errorf("info string %q: write sh (run in CI) or sh no-ci", info)
	}
	return Shown, nil
}

// Command is one command of a transcript and the output shown under it.
type Command struct {
	Line   int    // line of the command within the block, from 1
	Cmd    string // the command, continuation lines joined
	Output string // the lines under it up to the next command, trailing blank lines dropped; each line ends in a newline
}

// Commands splits a `console check` transcript into its commands: lines
// that start with "$ ", continued by a trailing backslash, each followed
// by its output.
func Commands(transcript string) ([]Command, error) {
	var (
		out  []Command
		cont bool
	)
	for i, line := range strings.SplitAfter(transcript, "\n") {
		if line == "" {
			continue
		}
		body := strings.TrimSuffix(line, "\n")
		switch {
		case cont:
			c := &out[len(out)-1]
			c.Cmd += "\n" + body
			cont = strings.HasSuffix(body, `\`)
		case strings.HasPrefix(body, "$ "):
			out = append(out, Command{Line: i + 1, Cmd: body[2:]})
			cont = strings.HasSuffix(body, `\`)
		case len(out) == 0:
			if strings.TrimSpace(body) != "" {
				return nil, fmt.Errorf("line %d: a transcript starts with a command (\"$ ...\")", i+1)
			}
		default:
			out[len(out)-1].Output += body + "\n"
		}
	}
	for i := range out {
		out[i].Output = TrimOutput(out[i].Output)
	}
	return out, nil
}

// GoOutput returns the output a go block expects: the comment lines after
// its "// Output:" line, without their "//" and one space; ok is false
// when the program has no such comment.
func GoOutput(src string) (want string, ok bool) {
	lines := strings.Split(src, "\n")
	for i, l := range lines {
		if strings.TrimSpace(l) != "// Output:" {
			continue
		}
		var b strings.Builder
		for _, l := range lines[i+1:] {
			t := strings.TrimSpace(l)
			if !strings.HasPrefix(t, "//") {
				break
			}
			t = strings.TrimPrefix(strings.TrimPrefix(t, "//"), " ")
			b.WriteString(t + "\n")
		}
		return TrimOutput(b.String()), true
	}
	return "", false
}

// TrimOutput drops the trailing spaces of every line and the trailing
// blank lines of s, so that output compares with what a transcript shows.
func TrimOutput(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t\r")
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

func lineOf(src []byte, off int) int { return bytes.Count(src[:off], []byte{'\n'}) + 1 }

// fenceLine is the line of the opening fence of a block without an info
// string: the line before its first content line (or before the closing
// fence when it is empty).
func fenceLine(src []byte, fc *ast.FencedCodeBlock) int {
	if fc.Lines().Len() > 0 {
		return lineOf(src, fc.Lines().At(0).Start) - 1
	}
	// An empty block: search back from the next node is not possible; use
	// the previous sibling's end.
	if p := fc.PreviousSibling(); p != nil && p.Lines().Len() > 0 {
		return lineOf(src, p.Lines().At(p.Lines().Len()-1).Stop) + 1
	}
	return 1
}

// nodeText is the raw text of a paragraph.
func nodeText(n ast.Node, src []byte) []byte {
	var b bytes.Buffer
	lines := n.Lines()
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		b.Write(seg.Value(src))
	}
	return b.Bytes()
}
