//go:build !race

package fuzz_test

// raceScale is 1 without the race detector: properties run their full case
// counts (see race_test.go).
const raceScale = 1
