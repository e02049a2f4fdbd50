//go:build race

package fuzz_test

// raceScale divides the property case counts under the race detector, which
// slows every evaluation about tenfold: `go test -race ./...` still runs every
// property (the concurrency it checks does not grow with the case count)
// within the default test timeout.
const raceScale = 8
