// Package serveproc holds what the memory measuring tools (bench/cmd/
// bodyrss, pagerss) share about a croql serve process: its address, read
// from its log, and its memory figures, read from /proc.
package serveproc

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// BaseURL reads croql serve's log r until it names its address, and
// discards the rest of the log from then on.
func BaseURL(r io.Reader) (string, error) {
	re := regexp.MustCompile(`(http://[^ ]*)/api/v2/projects`)
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if m := re.FindStringSubmatch(sc.Text()); m != nil {
			go func() { _, _ = io.Copy(io.Discard, r) }()
			return m[1], nil
		}
	}
	return "", fmt.Errorf("croql serve ended before it listened")
}

// Status returns a kB field of /proc/PID/status ("VmHWM:", "VmRSS:"),
// 0 when it cannot be read.
func Status(pid int, field string) int {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, field); ok {
			k, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return k
		}
	}
	return 0
}
