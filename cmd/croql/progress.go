package main

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// progress writes a self-overwriting status line to a terminal, at most
// every progressEvery; it does nothing when disabled.
type progress struct {
	mu     sync.Mutex // a streaming read shows progress from its reader goroutine
	w      io.Writer
	prefix string
	on     bool
	shown  bool
	last   time.Time
}

const progressEvery = 200 * time.Millisecond

// newProgress returns a progress line on w, each line starting with
// prefix, enabled when on is true (w is a terminal and the work is long).
func newProgress(w io.Writer, prefix string, on bool) *progress {
	return &progress{w: w, prefix: prefix, on: on}
}

// show replaces the status line, unless it was replaced less than
// progressEvery ago.
func (p *progress) show(format string, a ...any) {
	if !p.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if now := time.Now(); !p.shown || now.Sub(p.last) >= progressEvery {
		p.write(format, a...)
	}
}

// step replaces the status line now: a new stage of the work.
func (p *progress) step(format string, a ...any) {
	if !p.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.write(format, a...)
}

func (p *progress) write(format string, a ...any) {
	p.last = time.Now()
	p.shown = true
	fmt.Fprintf(p.w, "\r\x1b[K"+p.prefix+format, a...)
}

// done clears the status line.
func (p *progress) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.shown = false
	}
}
