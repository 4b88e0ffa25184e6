package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
)

// Signals. The first SIGINT (Ctrl-C) or SIGTERM cancels the command's context: a command
// stops at the next point where it can — between two points of a fit, at once while it
// reads its input or waits for the starting batch decomposition (a single LAPACK call
// that cannot be interrupted, and whose points are not yet processed: it is abandoned)
// — writes what its documentation promises (fit: every output for the points added so
// far) and exits with status 128 + the signal's number: 130 for SIGINT, 143 for SIGTERM.
// A second signal exits at once with that status, removing the temporary files of the
// outputs being written and writing nothing more.
//
// SIGPIPE is ignored, so that writing to a closed pipe returns EPIPE instead of killing
// the process: standard output is written last, after the files, and a reader that
// closes it early (ikpca fit --scores - --model m.ckpt | head) costs nothing but the
// rest of standard output. The command then finishes its work and its files quietly and
// exits with status 141 (128 + SIGPIPE), as a program killed by SIGPIPE would, so that
// a pipeline with "set -o pipefail" still sees that its output was cut short.

// signalCause is the cause of a context cancelled by a signal.
type signalCause struct{ sig os.Signal }

func (s signalCause) Error() string { return "interrupted (" + s.sig.String() + ")" }

// status is the exit status for the signal: 128 + its number.
func (s signalCause) status() int {
	if n, ok := s.sig.(syscall.Signal); ok {
		return 128 + int(n)
	}
	return 130
}

// statusBrokenPipe is the exit status after standard output's reader went away.
const statusBrokenPipe = 128 + 13

// handleSignals returns a context cancelled by the first SIGINT or SIGTERM; the second
// exits the process at once. Its messages go to errw, after a line break if errw is a
// terminal (which shows ^C). stop ends the handling.
func handleSignals(errw io.Writer, terminal bool) (ctx context.Context, stop func()) {
	signal.Ignore(syscall.SIGPIPE)
	ctx, cancel := context.WithCancelCause(context.Background())
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-ch:
			cancel(signalCause{sig})
			if terminal {
				fmt.Fprintln(errw)
			}
			fmt.Fprintln(errw, "ikpca: stopping (interrupt again to quit at once, writing nothing more)")
		case <-done:
			return
		}
		select {
		case sig := <-ch:
			removeTemps()
			fmt.Fprintln(errw, "ikpca: quitting at once")
			os.Exit(signalCause{sig}.status())
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		close(done)
		cancel(nil)
	}
}

// pipeOut is standard output that turns a broken pipe (EPIPE) into a quiet stop: the
// failed write and all later ones are discarded, and run exits with statusBrokenPipe.
type pipeOut struct {
	f      *os.File
	broken atomic.Bool
}

func (p *pipeOut) Write(b []byte) (int, error) {
	if p.broken.Load() {
		return len(b), nil
	}
	n, err := p.f.Write(b)
	if errors.Is(err, syscall.EPIPE) {
		p.broken.Store(true)
		return len(b), nil
	}
	return n, err
}

// Stat describes the file standard output is, for planOutputs.
func (p *pipeOut) Stat() (os.FileInfo, error) { return p.f.Stat() }
