package doctest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// repoRoot is the checkout's top directory, the one with go.work.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(".")
	require.NoError(t, err)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.work")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		require.NotEqual(t, parent, dir, "no go.work above the test's directory")
		dir = parent
	}
}

// docFiles are the documents whose examples run: README.md and docs/*.md.
func docFiles(t *testing.T, root string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	require.NoError(t, err)
	slices.Sort(files)
	return append([]string{filepath.Join(root, "README.md")}, files...)
}

// allBlocks reads every block of the documents.
func allBlocks(t *testing.T, root string) []Block {
	t.Helper()
	var out []Block
	for _, f := range docFiles(t, root) {
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		rel, _ := filepath.Rel(root, f)
		bs, err := Blocks(rel, src)
		require.NoError(t, err)
		out = append(out, bs...)
	}
	return out
}

func TestBlocks(t *testing.T) {
	src := "# T\n\nRun it:\n\n```sh\necho hi\n```\n\nNot in CI: it needs a token.\n\n```sh no-ci\ncurl x\n```\n\n" +
		"- a list item\n\n  ```console check\n  $ echo a \\\n  b\n  a b\n  ```\n\n```json\n{}\n```\n"
	bs, err := Blocks("t.md", []byte(src))
	require.NoError(t, err)
	require.Len(t, bs, 4)
	assert.Equal(t, Block{File: "t.md", Line: 5, Info: "sh", Kind: Shell, Text: "echo hi\n", Before: "Run it:"}, bs[0])
	assert.Equal(t, Shown, bs[1].Kind)
	assert.True(t, bs[1].NoCI())
	assert.Equal(t, "Not in CI: it needs a token.", bs[1].Before)
	assert.Equal(t, Transcript, bs[2].Kind)
	assert.Equal(t, 17, bs[2].Line)
	assert.Equal(t, "$ echo a \\\nb\na b\n", bs[2].Text)
	assert.Equal(t, Shown, bs[3].Kind)
	assert.Empty(t, bs[3].Before)

	cmds, err := Commands(bs[2].Text)
	require.NoError(t, err)
	assert.Equal(t, []Command{{Line: 1, Cmd: "echo a \\\nb", Output: "a b\n"}}, cmds)

	for _, bad := range []string{"```\nx\n```\n", "```bash\nx\n```\n", "```sh maybe\nx\n```\n", "```console no-ci\nx\n```\n"} {
		_, err := Blocks("bad.md", []byte(bad))
		assert.Error(t, err, bad)
	}
	_, err = Blocks("bad.md", []byte("# T\n\ntext\n\n```\nx\n```\n"))
	assert.ErrorContains(t, err, "bad.md:5: a fenced block without an info string")
	_, err = Commands("hello\n$ x\n")
	assert.Error(t, err)

	want, ok := GoOutput("package main\n\nfunc main() {\n\tprintln()\n\t// Output:\n\t// a b\n\t//\n\t// c\n}\n")
	assert.True(t, ok)
	assert.Equal(t, "a b\n\nc\n", want)
	_, ok = GoOutput("package main\n")
	assert.False(t, ok)
}

// TestConvention: every block of README.md and docs/*.md has an info
// string the convention knows, every block that does not run in CI says
// why in the paragraph before it, and every transcript parses. It runs
// in every `go test`, unlike the examples themselves.
func TestConvention(t *testing.T) {
	root := repoRoot(t)
	blocks := allBlocks(t, root)
	require.NotEmpty(t, blocks)
	for _, b := range blocks {
		if b.NoCI() {
			assert.NotEmpty(t, b.Before, "%s: a no-ci block needs a paragraph just before it saying why it does not run in CI", b)
		}
		if b.Kind == Transcript {
			cmds, err := Commands(b.Text)
			assert.NoError(t, err, b.String())
			assert.NotEmpty(t, cmds, b.String())
		}
		if b.Kind == GoProgram {
			assert.Regexp(t, `(?m)^package main$`, b.Text, "%s: a go block is a complete program (package main), or go no-ci with the reason before it", b)
		}
	}
}

// TestExamples runs the examples of README.md and docs/*.md: the sh
// blocks, the go programs and the console check transcripts, from the
// repository root, with a croql built from the checkout first on PATH, and
// TMPDIR and GOBIN directories of the test's. It runs when CROQL_DOCS_EXAMPLES=1
// (CI sets it: .ci/run, section docs); CROQL_DOCS_RUN, a regular
// expression, keeps only the blocks whose "file:line" matches.
func TestExamples(t *testing.T) {
	if os.Getenv("CROQL_DOCS_EXAMPLES") != "1" {
		t.Skip("the examples of README.md and docs/*.md run with CROQL_DOCS_EXAMPLES=1 (CI sets it)")
	}
	root := repoRoot(t)
	var filter *regexp.Regexp
	if s := os.Getenv("CROQL_DOCS_RUN"); s != "" {
		filter = regexp.MustCompile(s)
	}
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "croql"), "./cmd/croql")
	build.Dir = root
	out, err := build.CombinedOutput()
	require.NoError(t, err, "building croql: %s", out)
	env := append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))

	ran := 0
	for _, b := range allBlocks(t, root) {
		if b.Kind == Shown || filter != nil && !filter.MatchString(fmt.Sprintf("%s:%d", b.File, b.Line)) {
			continue
		}
		ran++
		t.Run(fmt.Sprintf("%s:%d", b.File, b.Line), func(t *testing.T) {
			tmp := t.TempDir()
			// GOBIN: go install in an example does not replace the croql
			// installed on this machine.
			benv := append(slices.Clip(env), "TMPDIR="+tmp, "GOBIN="+filepath.Join(tmp, "gobin"))
			before := untracked(t, root)
			switch b.Kind {
			case Shell:
				out, err := runShell(root, benv, b.Text)
				assert.NoError(t, err, "%s failed; its output:\n%s", b, out)
			case Transcript:
				cmds, err := Commands(b.Text)
				require.NoError(t, err)
				for _, c := range cmds {
					out, err := runShell(root, benv, c.Cmd)
					var ee *exec.ExitError
					if err != nil && !errors.As(err, &ee) {
						t.Errorf("%s, line %d: %v", b, c.Line, err)
						continue
					}
					assert.Equal(t, c.Output, TrimOutput(out), "%s, line %d: $ %s", b, c.Line, c.Cmd)
				}
			case GoProgram:
				out, err := runGo(t, root, benv, b.Text)
				if assert.NoError(t, err, "%s failed; its output:\n%s", b, out) {
					if want, ok := GoOutput(b.Text); ok {
						assert.Equal(t, want, TrimOutput(out), "%s: the output of the program against its // Output: comment", b)
					}
				}
			}
			if left := newFiles(before, untracked(t, root)); len(left) > 0 {
				for _, f := range left {
					_ = os.RemoveAll(filepath.Join(root, f))
				}
				t.Errorf("%s left files in the checkout (removed): %s; write scratch files under a directory of mktemp -d", b, strings.Join(left, ", "))
			}
		})
	}
	if ran == 0 {
		t.Fatalf("no example ran (CROQL_DOCS_RUN=%q)", os.Getenv("CROQL_DOCS_RUN"))
	}
}

// blockTimeout bounds one block; a server it started in the background is
// stopped when it ends.
const blockTimeout = 5 * time.Minute

// runShell runs script with bash in dir, in a process group of its own
// that is killed when the script ends (servers started with &), and
// returns what it printed on stdout and stderr.
func runShell(dir string, env []string, script string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), blockTimeout)
	defer cancel()
	f, err := os.CreateTemp("", "doctest-out-*")
	if err != nil {
		return "", err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	cmd := exec.CommandContext(ctx, "bash", "-c", "set -euo pipefail\n"+script)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdin = nil
	// A file, not a pipe: a background job that keeps the output open does
	// not hold Wait.
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	err = cmd.Run()
	if cmd.Process != nil {
		stopGroup(cmd.Process.Pid)
	}
	if ctx.Err() != nil {
		err = fmt.Errorf("timed out after %v: %w", blockTimeout, err)
	}
	out, rerr := os.ReadFile(f.Name())
	if rerr != nil && err == nil {
		err = rerr
	}
	return string(out), err
}

// stopGroup ends what is left of the process group pgid: SIGTERM, then
// SIGKILL for what has not exited a few seconds later.
func stopGroup(pgid int) {
	if syscall.Kill(-pgid, syscall.SIGTERM) != nil {
		return // no process left
	}
	for range 50 {
		time.Sleep(100 * time.Millisecond)
		if syscall.Kill(-pgid, 0) != nil {
			return
		}
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
}

// runGo runs a complete Go program in a scratch module that the
// repository's workspace resolves croql's modules for.
func runGo(t *testing.T, root string, env []string, src string) (string, error) {
	dir := t.TempDir()
	work, err := os.ReadFile(filepath.Join(root, "go.work"))
	require.NoError(t, err)
	// The workspace's paths, made absolute, and the scratch module.
	abs := regexp.MustCompile(`(?m)(^\s*|=>\s*)\./?([^\s]*)`).ReplaceAllStringFunc(string(work), func(m string) string {
		i := strings.Index(m, ".")
		return m[:i] + filepath.Join(root, m[i:])
	})
	abs = strings.Replace(abs, "use (", "use (\n\t.", 1)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.work"), []byte(abs), 0o644))
	if sum, err := os.ReadFile(filepath.Join(root, "go.work.sum")); err == nil {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "go.work.sum"), sum, 0o644))
	}
	mod := "module example.com/doctest\n\ngo 1.26.0\n\nrequire github.com/croql/croql v0.0.0-00010101000000-000000000000\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte(mod), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644))
	cmd := exec.Command("go", "run", ".")
	cmd.Dir = dir
	cmd.Env = append(slices.Clip(env), "GOWORK="+filepath.Join(dir, "go.work"))
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// untracked lists the untracked files of the checkout (nil when it is not
// a git checkout).
func untracked(t *testing.T, root string) []string {
	cmd := exec.Command("git", "status", "--porcelain=v1", "--untracked-files=all")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Logf("not checking for files left in the checkout: git status: %v", err)
		return nil
	}
	var files []string
	for _, l := range strings.Split(string(bytes.TrimSpace(out)), "\n") {
		if f, ok := strings.CutPrefix(l, "?? "); ok {
			files = append(files, f)
		}
	}
	return files
}

// newFiles returns the names of after that are not in before.
func newFiles(before, after []string) []string {
	var out []string
	for _, f := range after {
		if !slices.Contains(before, f) {
			out = append(out, f)
		}
	}
	return out
}

// TestReadmeStartsWithTwoCommands: the README's first blocks are a query
// over the built-in demo project, run by TestExamples, and the test
// command.
func TestReadmeStartsWithTwoCommands(t *testing.T) {
	root := repoRoot(t)
	src, err := os.ReadFile(filepath.Join(root, "README.md"))
	require.NoError(t, err)
	bs, err := Blocks("README.md", src)
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(bs), 2)
	assert.Equal(t, Shell, bs[0].Kind)
	assert.Regexp(t, `^go run \./cmd/croql query [^\n]*\n$`, bs[0].Text, "no --data: the built-in demo project")
	assert.NotContains(t, bs[0].Text, "--data")
	assert.Regexp(t, `^go test \./\.\.\. [^\n]*\n$`, bs[1].Text)
}

// TestDocsDescribeTheProduct: the README is a front page of at most 300
// lines, and neither it nor docs/*.md carries a record of the work that
// made them: no commit hash, no load average, no "the seed" (the
// platform's documentation is named instead).
func TestDocsDescribeTheProduct(t *testing.T) {
	root := repoRoot(t)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	require.NoError(t, err)
	assert.LessOrEqual(t, bytes.Count(readme, []byte("\n")), 300, "README.md lines")
	hexWord := regexp.MustCompile(`\b[0-9a-f]{7,40}\b`)
	for _, f := range docFiles(t, root) {
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		for i, line := range strings.Split(string(src), "\n") {
			at := fmt.Sprintf("%s:%d", filepath.Base(f), i+1)
			low := strings.ToLower(line)
			assert.NotContains(t, low, "load average", at)
			assert.NotRegexp(t, `\bthe seed\b`, low, at)
			for _, w := range hexWord.FindAllString(line, -1) {
				if strings.ContainsAny(w, "abcdef") && strings.ContainsAny(w, "0123456789") {
					t.Errorf("%s: %q looks like a commit hash", at, w)
				}
			}
		}
	}
}
