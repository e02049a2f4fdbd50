// Command pagerss measures what one large list page costs `croql serve`
// (embedded SQLite): a project of -strings source strings whose texts
// are -text bytes of -char (`<` is escaped in JSON as 6 bytes, so the
// answer is six times the texts), one GET …/strings?limit=-limit, and
// the server's RSS when idle and its peak across the request (VmHWM of
// /proc/PID/status, reset through /proc/PID/clear_refs before the
// request).
//
//	go build -o /tmp/croql ./cmd/croql
//	go run ./bench/cmd/pagerss -croql /tmp/croql -strings 500 -text 100000 -char '<'
//	go run ./bench/cmd/pagerss -croql /tmp/croql -strings 500 -text 60000 -char a
//
// Arguments after -- go to croql serve (e.g. --max-page-bytes 8388608).
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"github.com/croql/croql/bench/internal/serveproc"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

func main() {
	bin := flag.String("croql", "croql", "the croql binary")
	n := flag.Int("strings", 500, "source strings")
	size := flag.Int("text", 100000, "bytes of each text")
	char := flag.String("char", "<", "the texts' character")
	limit := flag.Int("limit", 500, "the page's limit")
	repeat := flag.Int("repeat", 3, "rounds of requests, one after the other")
	parallel := flag.Int("parallel", 1, "requests at once in each round")
	flag.Parse()
	if err := run(*bin, *n, *size, *char, *limit, *repeat, *parallel, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "pagerss:", err)
		os.Exit(1)
	}
}

func run(bin string, n, size int, char string, limit, repeat, parallel int, extra []string) error {
	dir, err := os.MkdirTemp("", "pagerss")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	data := filepath.Join(dir, "p.ndjson")
	if err := writeProject(data, n, strings.Repeat(char, size/len(char))); err != nil {
		return err
	}
	args := append([]string{"serve", "--token", "t", "--listen", "127.0.0.1:0", "--dir", dir + "/serve", "--data", data, "--resident-max-bytes", "0"}, extra...)
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
	pid := cmd.Process.Pid
	fmt.Printf("%d strings of %d × %q; %d × GET …/strings?limit=%d at once\n", n, size, char, parallel, limit)
	for range repeat {
		time.Sleep(time.Second)
		if err := os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0); err != nil {
			return err
		}
		idle := serveproc.Status(pid, "VmRSS:")
		var wg sync.WaitGroup
		answers := make([]string, parallel)
		for i := range parallel {
			wg.Go(func() {
				code, length, msg := get(base + "/api/v2/projects/1/strings?limit=" + strconv.Itoa(limit))
				answers[i] = fmt.Sprintf("%d, %d bytes %s", code, length, msg)
			})
		}
		wg.Wait()
		peak := serveproc.Status(pid, "VmHWM:")
		fmt.Printf("answers %s; RSS idle %d MB, peak %d MB: +%d MB\n", strings.Join(answers, "; "), idle>>10, peak>>10, (peak-idle)>>10)
	}
	return nil
}

func writeProject(name string, n int, text string) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	fmt.Fprintln(w, `{"kind":"project","name":"pages","sourceLanguageId":"en","targetLanguageIds":["uk"]}`)
	t, _ := json.Marshal(text)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(w, `{"kind":"string","id":%d,"type":"plain","text":%s,"identifier":"k%d","context":"","added":"2024-01-01 00:00:00"}`+"\n", i, t, i)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}

func get(url string) (int, int64, string) {
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Authorization", "Bearer t")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, 0, err.Error()
	}
	defer resp.Body.Close()
	head := make([]byte, 200)
	k, _ := io.ReadFull(resp.Body, head)
	rest, _ := io.Copy(io.Discard, resp.Body)
	msg := ""
	if resp.StatusCode != http.StatusOK {
		msg = strings.TrimSpace(string(head[:k]))
	}
	return resp.StatusCode, int64(k) + rest, msg
}
