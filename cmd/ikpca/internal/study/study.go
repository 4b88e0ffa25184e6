// Package study holds what the studies under internal/study share: the named outputs a
// study returns (a CSV table, a figure drawn from it, a markdown summary), the figures
// themselves, and the rules that redraw a figure from its CSV file.
//
// Each study is a package of its own (paper, streaming, kaf, chinsuter). A study computes,
// then returns its results as a list of [Output]; the command ikpca writes every output of
// every study with one function. A figure is always drawn from its table by a [Plot]
// rule, never from the study's internal state, so that the committed CSV files are enough
// to redraw every figure (see [Redraw]). See docs/design.md, "The command's outputs".
package study

import (
	"errors"
	"fmt"
	"strings"
)

// Output is one named result of a study.
type Output struct {
	// Name is the base name of the output's files: Name.csv for the table and Name.png
	// for the figure. It has no directory part and no extension.
	Name string
	// Table is written to Name.csv; nil for none.
	Table *Table
	// Figure is written to Name.png; nil for none.
	Figure *Figure
	// Markdown is the output's part of the study's summary; empty for none.
	Markdown string
}

// ErrOptions reports options a study cannot run with: a size out of range, an unknown
// data set. The command reports it as a usage error.
var ErrOptions = errors.New("study: bad options")

// ErrName reports an output name that is not a plain file base name or that two outputs
// share.
var ErrName = errors.New("study: bad output name")

// Files returns the names of the files the outputs are written to, in order: Name.csv
// for each table and Name.png for each figure. It returns an error wrapping [ErrName] if
// a name is empty, has a directory part, starts with a dot (the writer's temporary files
// do) or is shared by two files.
func Files(outs []Output) ([]string, error) {
	var files []string
	seen := map[string]bool{}
	for _, o := range outs {
		if o.Name == "" || o.Name == "." || o.Name == ".." || strings.ContainsAny(o.Name, `/\`) || strings.HasPrefix(o.Name, ".") {
			return nil, fmt.Errorf("%w: %q", ErrName, o.Name)
		}
		for _, f := range []struct {
			present bool
			ext     string
		}{{o.Table != nil, ".csv"}, {o.Figure != nil, ".png"}} {
			if !f.present {
				continue
			}
			name := o.Name + f.ext
			if seen[name] {
				return nil, fmt.Errorf("%w: two outputs write %s", ErrName, name)
			}
			seen[name] = true
			files = append(files, name)
		}
	}
	return files, nil
}

// Summary joins the outputs' markdown, each part followed by a blank line.
func Summary(outs []Output) string {
	var b strings.Builder
	for _, o := range outs {
		if o.Markdown == "" {
			continue
		}
		b.WriteString(strings.TrimRight(o.Markdown, "\n"))
		b.WriteString("\n\n")
	}
	return b.String()
}

// Progress reports a study's progress after each step: the name of the stage, the steps
// done in it and their total. A nil Progress reports nothing.
type Progress func(stage string, done, total int)

// Report calls p if it is set.
func (p Progress) Report(stage string, done, total int) {
	if p != nil {
		p(stage, done, total)
	}
}

// Stage returns a callback that reports the progress of one stage through p, or nil if p
// is nil.
func (p Progress) Stage(name string) func(done, total int) {
	if p == nil {
		return nil
	}
	return func(done, total int) { p(name, done, total) }
}
