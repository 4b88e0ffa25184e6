// Package cli holds what the harness's programs (bench, bench/certified, bench/pcafit,
// bench/denoise, bench/transform) share around their work: the run of a command line
// with its exit statuses, the JSON report, and the CPU's name that reports carry. It is
// an application's helper (docs/design.md, "Layout": bench/… is above every level);
// bench/transformbaseline does not use it, as it must build in revisions that predate
// it.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"os"
)

// Main runs the program name: parse reads its command line (os.Args[1:]) into a
// configuration, and run does the work with it. A request for help (flag.ErrHelp: the
// flag set has printed the usage) exits 0; an error of parse is written to standard
// error after the program's name and exits usage (2 for a program whose bad command
// line is told apart from a failure, 1 for one whose is not); an error of run exits 1
// the same way.
func Main[C any](name string, usage int, parse func([]string) (C, error), run func(C) error) {
	cfg, err := parse(os.Args[1:])
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, name+":", err)
		os.Exit(usage)
	}
	if err := run(cfg); err != nil {
		fmt.Fprintln(os.Stderr, name+":", err)
		os.Exit(1)
	}
}
