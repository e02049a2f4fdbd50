// Command bodyrss measures the peak memory of `croql serve` (the built-in
// demo project, embedded SQLite) while many large bodies arrive at once:
// -n concurrent uploads of a -mb MB key-value JSON file, sent as raw
// bodies to POST /api/v2/projects/1/files (-mode files) or to POST
// /api/v2/storages (-mode storages). It prints how the requests were
// answered and the server's peak RSS (VmHWM of /proc/PID/status) before
// and after them.
//
//	go build -o /tmp/croql ./cmd/croql
//	go run ./bench/cmd/bodyrss -croql /tmp/croql -n 16 -mb 30 -mode files
//	go run ./bench/cmd/bodyrss -croql /tmp/croql -n 48 -mb 30 -mode storages -- --max-body-memory 268435456
//
// Arguments after -- go to croql serve.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"github.com/croql/croql/bench/internal/serveproc"
	"io"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

func main() {
	bin := flag.String("croql", "croql", "the croql binary")
	n := flag.Int("n", 16, "concurrent requests")
	mb := flag.Int("mb", 30, "megabytes of each body")
	mode := flag.String("mode", "files", "files (one-step upload) or storages (POST /api/v2/storages)")
	flag.Parse()
	if err := run(*bin, *n, *mb, *mode, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "bodyrss:", err)
		os.Exit(1)
	}
}

func run(bin string, n, mb int, mode string, extra []string) error {
	dir, err := os.MkdirTemp("", "bodyrss")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	args := append([]string{"serve", "--token", "t", "--listen", "127.0.0.1:0", "--dir", dir + "/serve"}, extra...)
	cmd := exec.Command(bin, args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	base, err := serveproc.BaseURL(stderr)
	if err != nil {
		return err
	}
	body := jsonBody(mb << 20)
	pid := cmd.Process.Pid
	fmt.Printf("%d concurrent %s bodies of %d bytes (%d keys)\n", n, mode, len(body), bytes.Count(body, []byte(":")))
	fmt.Printf("peak RSS before: %d MB\n", serveproc.Status(pid, "VmHWM:")>>10)
	start := time.Now()
	codes := send(base, mode, body, n)
	fmt.Printf("answers after %.1f s: %s\n", time.Since(start).Seconds(), codes)
	fmt.Printf("peak RSS after:  %d MB\n", serveproc.Status(pid, "VmHWM:")>>10)
	return nil
}

// jsonBody is a key-value JSON object of about size bytes.
func jsonBody(size int) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i := 0; b.Len() < size-40; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"k%07d":"t%07d"`, i, i)
	}
	b.WriteString("}")
	return b.Bytes()
}

func send(base, mode string, body []byte, n int) string {
	var mu sync.Mutex
	counts := map[string]int{}
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			url := base + "/api/v2/projects/1/files"
			if mode == "storages" {
				url = base + "/api/v2/storages"
			}
			req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
			req.Header.Set("Authorization", "Bearer t")
			req.Header.Set("Crowdin-API-FileName", "f"+strconv.Itoa(i)+".json")
			key := ""
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				key = "error"
			} else {
				msg, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
				resp.Body.Close()
				key = strconv.Itoa(resp.StatusCode)
				if resp.StatusCode >= 400 {
					key += " " + strings.TrimSpace(string(msg))
				}
			}
			mu.Lock()
			counts[key]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	var out []string
	for k, c := range counts {
		out = append(out, fmt.Sprintf("%d × %s", c, k))
	}
	sort.Strings(out)
	return strings.Join(out, "; ")
}
