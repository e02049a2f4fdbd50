//go:build race

package server_test

// raceDetector is true when the tests run under the race detector, whose
// slowdown makes latency bounds meaningless.
const raceDetector = true
