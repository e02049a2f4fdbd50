package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// newVersionCmd returns `croql version`: the module version croql was
// built from (v0.x.y when installed with go install ...@version, (devel)
// when built from a checkout), the commit when the build recorded one, and
// the Go version and platform.
func newVersionCmd(c *cli) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version of croql",
		Long: "Prints the version of croql from its build information: the module version\n" +
			"(set by go install github.com/croql/croql/cmd/croql@VERSION), the commit when the\n" +
			"build recorded one, the Go version and the platform.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			bi, ok := debug.ReadBuildInfo()
			fmt.Fprintln(c.stdout, versionLine(bi, ok))
			return nil
		},
	}
}

// version returns the module version croql was built from.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok || bi.Main.Version == "" {
		return "(unknown)"
	}
	return bi.Main.Version
}

// versionLine formats build information as
// "croql v0.2.0 (commit 0123abcdef01, modified; go1.26.0 linux/amd64)".
func versionLine(bi *debug.BuildInfo, ok bool) string {
	v := "(unknown)"
	var details []string
	if ok && bi != nil {
		if bi.Main.Version != "" {
			v = bi.Main.Version
		}
		var rev, modified string
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				modified = s.Value
			}
		}
		if rev != "" {
			if len(rev) > 12 {
				rev = rev[:12]
			}
			c := "commit " + rev
			if modified == "true" {
				c += ", modified"
			}
			details = append(details, c)
		}
	}
	goVersion := runtime.Version()
	if ok && bi != nil && bi.GoVersion != "" {
		goVersion = bi.GoVersion
	}
	details = append(details, goVersion+" "+runtime.GOOS+"/"+runtime.GOARCH)
	return "croql " + v + " (" + strings.Join(details, "; ") + ")"
}
