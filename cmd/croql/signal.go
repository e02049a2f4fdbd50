package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// signalContext returns a context that SIGINT or SIGTERM cancels, so that
// a running command stops cleanly: a query on a server drops its scratch
// schema on the way out. stop restores the default handling (a second
// signal then kills the process).
func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}
