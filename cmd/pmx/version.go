package main

import (
	"fmt"
	"io"
	"runtime/debug"
	"strings"
)

// versionCmd prints what this binary is: the module version (a tagged
// release, or "(devel)" from a checkout), the VCS revision and time it was
// built from (with "+dirty" for uncommitted changes), and the Go version.
func versionCmd(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("version", versionUsage)
	if err := parseFlags(fs, args, stdout, stderr); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("version: unexpected argument %q", fs.Arg(0))
	}
	fmt.Fprintln(stdout, versionLine())
	return nil
}

func versionLine() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "pmx (no build information)"
	}
	parts := []string{"pmx", bi.Main.Version}
	var rev, at string
	dirty := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if dirty {
			rev += "+dirty"
		}
		parts = append(parts, "rev "+rev)
	}
	if at != "" {
		parts = append(parts, at)
	}
	return strings.Join(append(parts, bi.GoVersion), " ")
}
