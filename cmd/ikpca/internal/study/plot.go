package study

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Plot is the rule that draws one figure from one table. CSV and PNG are base names; a
// "*" in CSV stands for any non-empty text (a data set's name, say), which takes the
// place of the "*" in PNG: the rule {CSV: "skpca-*", PNG: "skpca-*-ell"} draws
// skpca-a9a-ell.png from skpca-a9a.csv. Draw receives the table and the text the "*"
// stood for ("" without one).
type Plot struct {
	CSV, PNG string
	Draw     func(t *Table, star string) (*Figure, error)
}

// match reports whether name matches the rule's CSV pattern, and what its "*" stood for.
func (p Plot) match(name string) (star string, ok bool) {
	before, after, wild := strings.Cut(p.CSV, "*")
	if !wild {
		return "", name == p.CSV
	}
	if len(name) <= len(before)+len(after) || !strings.HasPrefix(name, before) || !strings.HasSuffix(name, after) {
		return "", false
	}
	return name[len(before) : len(name)-len(after)], true
}

// Reads reports whether any of the rules draws a figure from the table named name.
func Reads(plots []Plot, name string) bool {
	for _, p := range plots {
		if _, ok := p.match(name); ok {
			return true
		}
	}
	return false
}

// Draw returns outs with the figures the rules draw from their tables: a figure whose
// name is that of an output without a figure joins it, any other becomes an output of
// its own, after the outputs.
func Draw(outs []Output, plots []Plot) ([]Output, error) {
	out := append([]Output(nil), outs...)
	var extra []Output
	for _, o := range outs {
		if o.Table == nil {
			continue
		}
		for _, p := range plots {
			star, ok := p.match(o.Name)
			if !ok {
				continue
			}
			fig, err := p.Draw(o.Table, star)
			if err != nil {
				return nil, fmt.Errorf("study: %s.png from %s.csv: %w", strings.Replace(p.PNG, "*", star, 1), o.Name, err)
			}
			name := strings.Replace(p.PNG, "*", star, 1)
			joined := false
			for i := range out {
				if out[i].Name == name && out[i].Figure == nil {
					out[i].Figure, joined = fig, true
					break
				}
			}
			if !joined {
				extra = append(extra, Output{Name: name, Figure: fig})
			}
		}
	}
	return append(out, extra...), nil
}

// Redraw returns the figures the rules draw from the given tables (named by their base
// names), as outputs that hold a figure and nothing else: what it takes to draw every
// figure again from CSV files without running the study.
func Redraw(tables map[string]*Table, plots []Plot) ([]Output, error) {
	var outs []Output
	for _, name := range slices.Sorted(maps.Keys(tables)) {
		if Reads(plots, name) {
			outs = append(outs, Output{Name: name, Table: tables[name]})
		}
	}
	drawn, err := Draw(outs, plots)
	if err != nil {
		return nil, err
	}
	var figs []Output
	for _, o := range drawn {
		if o.Figure != nil {
			figs = append(figs, Output{Name: o.Name, Figure: o.Figure})
		}
	}
	return figs, nil
}
