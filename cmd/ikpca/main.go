// Command ikpca is exact incremental kernel PCA from the command line.
//
//	ikpca                  a short demo on the embedded Yeast data (same as "ikpca demo")
//	ikpca demo             stream the embedded Yeast data through incremental kernel PCA
//	ikpca fit [FILE]       fit a model to the rows of a CSV/TSV/whitespace file or the images
//	                       of an IDX file, gzip-compressed or not (or standard input):
//	                       eigenvalues, training scores, and a checkpoint of the model
//	ikpca transform [FILE] project new points with a saved model
//	ikpca nystrom [FILE]   incremental Nyström: error norms for every number of landmarks
//	ikpca experiment       reproduce Hallgren and Northrop's Figures 1 and 2 (CSV and PNG)
//	ikpca streaming        compare the streaming methods (SKPCA, RNCA, KRQA, KHA) with
//	                       Nyström and the exact model (CSV, PNG, markdown)
//	ikpca kaf              kernel adaptive filtering on SPEED features (CSV, PNG, markdown)
//	ikpca chinsuter        Chin and Suter's incremental kernel PCA against batch, KHA and
//	                       this library (CSV, PNG, markdown)
//	ikpca tracking         rank-r tracking and sliding windows on MAGIC and a9a against
//	                       batch, SKPCA, Chin–Suter and scikit-learn (CSV, PNG, markdown)
//	ikpca backend          the BLAS/LAPACK backend, OpenBLAS's kernels, threads, CPU and
//	                       dgemm's speed against the CPU's peak, with advice
//
// Run "ikpca help COMMAND" for the flags of a command. Build with -tags openblas to use
// OpenBLAS (Debian: libopenblas-dev liblapacke-dev).
//
// Outputs are checked before the work starts (two outputs naming the same file, a
// missing or read-only directory, a read-only file) and written when it ends, files
// first and standard output last. Files are replaced atomically through a temporary
// file ".NAME.ikpca-tmp-XXXXXXXX" in the same directory, which only a kill -9 can leave
// behind; FIFOs, devices and /dev/fd/N are written in place.
//
// Exit status: 0 on success, 1 on an error (bad input names the file, line and field),
// 2 on a usage error (a flag that is impossible or absurd included), 130 when interrupted
// by Ctrl-C (SIGINT) and 143 by SIGTERM (fit still writes its outputs for the points
// processed so far; a second signal quits at once), 141 when standard output's reader
// closed it early (the files are complete), 70 on an internal error (a bug: a panic,
// reported with its stack).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

func main() {
	// The command's memory is large arrays of floats, which hold no pointers and cost the
	// collector nothing to scan: collecting when the heap has grown by a quarter rather
	// than doubled (Go's default, GOGC=100) lowers the peak resident memory of a rank-50
	// fit and polish of MAGIC from 314 to 282 MiB at no measurable cost in time. GOGC in
	// the environment overrides it.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(25)
	}
	terminal := stderrIsTerminal()
	ctx, stop := handleSignals(os.Stderr, terminal)
	code := run(ctx, os.Args[1:], env{in: os.Stdin, out: &pipeOut{f: os.Stdout}, errw: os.Stderr, terminal: terminal})
	stop()
	os.Exit(code)
}

// env is what a command reads and writes: the process's streams in main, buffers in
// tests.
type env struct {
	in       io.Reader
	out      io.Writer
	errw     io.Writer
	terminal bool // stderr is a terminal: progress bars are drawn
}

// usageError marks a mistake in the command line (exit status 2).
type usageError struct{ error }

// errInterrupted is returned when a command stops because its context was cancelled.
var errInterrupted = errors.New("interrupted")

// statusInternal is the exit status of an internal error, a panic: EX_SOFTWARE of
// sysexits.h, never 2, which is a usage error's (and an uncaught panic's in Go).
const statusInternal = 70

// internalError is a panic caught in one of the command's goroutines (the main one, or
// interruptible's), with the stack where it happened.
type internalError struct {
	value any
	stack []byte
}

func (e *internalError) Error() string {
	return fmt.Sprintf("internal error (a bug, please report it): panic: %v", e.value)
}

// recovered returns the internalError of a recovered panic value v (recover's result),
// or nil if there was no panic.
func recovered(v any) error {
	if v == nil {
		return nil
	}
	return &internalError{value: v, stack: debug.Stack()}
}

// reportInternal writes an internal error and its stack and returns statusInternal.
func reportInternal(e env, ie *internalError) int {
	fmt.Fprintf(e.errw, "ikpca: %v\n\n%s", ie, ie.stack)
	return statusInternal
}

// run executes one command line and returns the exit status. A panic in the command's
// goroutines is an internal error (statusInternal), reported with its stack; a panic in
// another goroutine (a library's workers) still ends the process as Go does, with
// status 2 and the stack on standard error.
func run(ctx context.Context, args []string, e env) (code int) {
	defer func() {
		if err := recovered(recover()); err != nil {
			code = reportInternal(e, err.(*internalError))
		}
	}()
	root := newRoot(e)
	root.SetArgs(args)
	root.SetIn(e.in)
	root.SetOut(e.out)
	root.SetErr(e.errw)
	err := root.ExecuteContext(ctx)
	var ue usageError
	var sc signalCause
	var ie *internalError
	switch {
	case errors.As(err, &ie):
		return reportInternal(e, ie)
	case err == nil:
		if p, ok := e.out.(*pipeOut); ok && p.broken.Load() {
			return statusBrokenPipe // quietly: the reader wanted no more
		}
		return 0
	case errors.Is(err, errInterrupted):
		fmt.Fprintln(e.errw, "ikpca:", err)
		if errors.As(context.Cause(ctx), &sc) {
			return sc.status()
		}
		return 130
	case errors.As(err, &ue):
		fmt.Fprintf(e.errw, "ikpca: %v\n(run \"ikpca help\" for usage)\n", err)
		return 2
	default:
		fmt.Fprintln(e.errw, "ikpca:", err)
		return 1
	}
}

func newRoot(e env) *cobra.Command {
	root := &cobra.Command{
		Use:   "ikpca",
		Short: "Exact incremental kernel PCA",
		Long: `ikpca keeps the eigendecomposition of a kernel matrix up to date as points arrive one
at a time, exactly (to rounding) and at about the cost of one matrix product per point.
Without a command it runs a short demo on the embedded Yeast data.

Outputs are checked before the work starts (two outputs naming the same file, a missing
or read-only directory, a read-only file: errors) and written when it ends, files first
and standard output last. A file is replaced atomically through a temporary file
".NAME.ikpca-tmp-XXXXXXXX" in its directory, removed on any failure or interruption; only
a kill -9 or a crash can leave one behind (delete it). FIFOs, devices such as /dev/null
and /dev/fd/N are written in place.

Exit status: 0 success, 1 error, 2 usage error, 130 interrupted by Ctrl-C (SIGINT), 143 by
SIGTERM (a second signal quits at once), 141 standard output closed early by its reader
(the files are complete).`,
		SilenceUsage:  true,
		SilenceErrors: true,
		// A word that is not a command is an unknown command, with cobra's suggestions.
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return nil
			}
			msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
			if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
				msg += "; did you mean " + strings.Join(s, " or ") + "?"
			}
			return usageError{errors.New(msg)}
		},
	}
	root.SuggestionsMinimumDistance = 2            // cobra's default, which SuggestionsFor does not apply
	root.CompletionOptions.HiddenDefaultCmd = true // "ikpca completion SHELL" works, unlisted
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	// Before any command runs: its numeric flags are possible (checkNumbers).
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error { return checkNumbers(cmd.Flags()) }
	demo := demoCommand(e)
	root.Flags().AddFlagSet(demo.Flags())
	root.RunE = demo.RunE
	root.AddCommand(demo, fitCommand(e), transformCommand(e), nystromCommand(e), experimentCommand(e), streamingCommand(e), kafCommand(e), chinSuterCommand(e), trackingCommand(e), backendCommand(e))
	for _, c := range root.Commands() {
		c.SilenceUsage, c.SilenceErrors = true, true
		if c.Args == nil {
			c.Args = cobra.NoArgs
		}
		args := c.Args
		c.Args = func(cmd *cobra.Command, a []string) error {
			if err := args(cmd, a); err != nil {
				return usageError{err}
			}
			return nil
		}
	}
	return root
}
