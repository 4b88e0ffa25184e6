package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/ikpca/ikpca/cmd/ikpca/internal/study"
	"github.com/ikpca/ikpca/native"
)

// studyFlags are the flags every study command shares: where its outputs go, and
// whether to redraw the figures from the CSV files already there instead of running.
type studyFlags struct {
	out    string
	replot bool
}

func (f *studyFlags) add(fs *pflag.FlagSet, dir string) {
	fs.StringVar(&f.out, "out", dir, "directory for the CSV, PNG and markdown files (created)")
	fs.BoolVar(&f.replot, "replot", false, "draw the figures again from the CSV files in --out, without running the experiments")
}

// studyCommand describes one study for runStudy.
type studyCommand struct {
	title   string       // the summary's heading, e.g. "Kernel adaptive filtering on SPEED features"
	summary string       // the summary file's name in the output directory; "" for none
	plots   []study.Plot // the rules that draw the study's figures from its tables
	// progress is where the study's options take its progress callback, set before run.
	progress *study.Progress
	// run runs the study.
	run func(ctx context.Context) ([]study.Output, error)
}

// runStudy is what every study command does once its flags are checked: it prepares the
// output directory before the work starts, runs the study (or, with --replot, reads its
// CSV files back) and writes its outputs with writeOutputs.
func runStudy(ctx context.Context, e env, f studyFlags, s studyCommand) error {
	if f.replot {
		return redraw(e, f.out, s.plots)
	}
	if err := prepareDir(f.out); err != nil {
		return err
	}
	native.Use()
	bars := &stageBars{e: e}
	*s.progress = bars.report
	outs, err := s.run(ctx)
	bars.finish()
	if errors.Is(err, study.ErrOptions) {
		return usageError{err}
	}
	if err != nil {
		return interruption(err)
	}
	heading := fmt.Sprintf("## %s (%s)\n\n", s.title, native.Active())
	return writeStudy(e, f.out, s.summary, heading, outs)
}

// prepareDir creates dir if needed and checks that files can be created in it, so that a
// long study does not fail at its end.
func prepareDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	probe, err := os.CreateTemp(dir, ".ikpca-probe-*")
	if err != nil {
		return fmt.Errorf("output directory: %w", err)
	}
	probe.Close()
	return os.Remove(probe.Name())
}

// redraw draws the figures of the plots again from the CSV files in dir.
func redraw(e env, dir string, plots []study.Plot) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	tables := map[string]*study.Table{}
	for _, en := range entries {
		name, ok := strings.CutSuffix(en.Name(), ".csv")
		if !ok || !en.Type().IsRegular() || !study.Reads(plots, name) {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(dir, en.Name()))
		if err != nil {
			return err
		}
		if tables[name], err = study.ReadCSV(bytes.NewReader(raw)); err != nil {
			return fmt.Errorf("%s: %w", filepath.Join(dir, en.Name()), err)
		}
	}
	figs, err := study.Redraw(tables, plots)
	if err != nil {
		return err
	}
	if len(figs) == 0 {
		return fmt.Errorf("%s holds no CSV file that a figure of this command is drawn from", dir)
	}
	return writeStudy(e, dir, "", "", figs)
}

// writeStudy writes a study's outputs to dir in one loop: each table to NAME.csv, each
// figure to NAME.png, and the heading and the outputs' markdown to standard output and
// to the summary file (if summary is not empty). Everything is rendered in memory first
// and every target checked before any is written, so that a failure leaves dir as it
// was. Each file is written atomically: to a temporary file in dir, synced, then renamed
// over the target (the command's atomic writer, output.go). A target that exists and is not a regular, writable file (a symbolic
// link, a FIFO, a directory, a read-only file) is an error: the study did not produce it
// and it is not replaced. Two outputs of one study never share a file.
func writeStudy(e env, dir, summary, heading string, outs []study.Output) error {
	names, err := study.Files(outs)
	if err != nil {
		return err
	}
	contents := map[string][]byte{}
	for _, o := range outs {
		if o.Table != nil {
			var b bytes.Buffer
			if err := o.Table.WriteCSV(&b); err != nil {
				return fmt.Errorf("%s.csv: %w", o.Name, err)
			}
			contents[o.Name+".csv"] = b.Bytes()
		}
		if o.Figure != nil {
			var b bytes.Buffer
			if err := o.Figure.WritePNG(&b); err != nil {
				return fmt.Errorf("%s.png: %w", o.Name, err)
			}
			contents[o.Name+".png"] = b.Bytes()
		}
	}
	md := heading + study.Summary(outs)
	if summary != "" {
		if slices.Contains(names, summary) {
			return fmt.Errorf("%w: an output is named like the summary %s", study.ErrName, summary)
		}
		names = append(names, summary)
		contents[summary] = []byte(md)
	}
	for _, name := range names {
		if err := replaceable(filepath.Join(dir, name)); err != nil {
			return err
		}
	}
	for _, name := range names {
		o := &output{flag: "--out", path: filepath.Join(dir, name)}
		if err := o.plan(); err != nil {
			return err
		}
		data := contents[name]
		if err := o.write(e, func(w io.Writer) error { _, err := w.Write(data); return err }); err != nil {
			return err
		}
	}
	if _, err := io.WriteString(e.out, md); err != nil {
		return err
	}
	fmt.Fprintf(e.errw, "wrote %s to %s\n", strings.Join(names, ", "), dir)
	return nil
}

// replaceable returns nil if path does not exist or is a regular file that its owner
// may write.
func replaceable(path string) error {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return err
	case !fi.Mode().IsRegular():
		return fmt.Errorf("%s exists and is not a regular file (%v): not replaced", path, fi.Mode().Type())
	case fi.Mode().Perm()&0o200 == 0:
		return fmt.Errorf("%s is read-only: not replaced", path)
	}
	return nil
}

// interruption turns a context cancellation into errInterrupted.
func interruption(err error) error {
	if errors.Is(err, context.Canceled) {
		return fmt.Errorf("%w", errInterrupted)
	}
	return err
}

// stageBars draws one progress bar per stage of a study.
type stageBars struct {
	e     env
	stage string
	bar   *progress
}

func (s *stageBars) report(stage string, done, total int) {
	if s.bar == nil || stage != s.stage {
		s.finish()
		s.stage, s.bar = stage, newProgress(s.e, stage, total)
	}
	s.bar.total = total
	s.bar.set(done)
}

func (s *stageBars) finish() {
	if s.bar != nil {
		s.bar.finish()
		s.bar = nil
	}
}
