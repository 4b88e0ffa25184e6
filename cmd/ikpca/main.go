// Command ikpca is exact incremental kernel PCA from the command line.
//
//	ikpca                  a short demo on the embedded Yeast data (same as "ikpca demo")
//	ikpca fit [FILE]       fit a model to the rows of a CSV/TSV file (or standard input):
//	                       eigenvalues, training scores, and a checkpoint of the model
//	ikpca transform [FILE] project new points with a saved model
//	ikpca nystrom [FILE]   incremental Nyström: error norms for every number of landmarks
//	ikpca experiment       reproduce Hallgren and Northrop's Figures 1 and 2 (CSV and PNG)
//
// Run "ikpca help COMMAND" for the flags of a command. Build with -tags openblas to use
// OpenBLAS (Debian: libopenblas-dev liblapacke-dev).
//
// Exit status: 0 on success, 1 on an error (bad input names the file, line and field),
// 2 on a usage error, 130 when interrupted (Ctrl-C; fit still writes its outputs for the
// points processed so far).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], env{in: os.Stdin, out: os.Stdout, errw: os.Stderr, terminal: stderrIsTerminal()})
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

// run executes one command line and returns the exit status.
func run(ctx context.Context, args []string, e env) int {
	root := newRoot(e)
	root.SetArgs(args)
	root.SetIn(e.in)
	root.SetOut(e.out)
	root.SetErr(e.errw)
	err := root.ExecuteContext(ctx)
	if err != nil && strings.HasPrefix(err.Error(), "unknown command") {
		err = usageError{err} // cobra reports it as a plain error
	}
	var ue usageError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errInterrupted):
		fmt.Fprintln(e.errw, "ikpca:", err)
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
Without a command it runs a short demo on the embedded Yeast data.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.NoArgs,
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	demo := demoCommand(e)
	root.Flags().AddFlagSet(demo.Flags())
	root.RunE = demo.RunE
	root.AddCommand(demo, fitCommand(e), transformCommand(e), nystromCommand(e), experimentCommand(e), streamingCommand(e), kafCommand(e), chinSuterCommand(e))
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
