package tracking

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ikpca/ikpca/internal/table"
	"gonum.org/v1/gonum/mat"
)

// runSklearn fits scikit-learn's KernelPCA once on all the points, for each solver of
// o.Sklearn, by the script o.Script (bench/sklearn_fit.py): the points go to it in a
// temporary CSV file with the bandwidth σ, and it prints one CSV row per fit — the fit's
// seconds, its resident memory before the fit and at its peak, and the top k
// eigenvalues of the centred kernel matrix (KernelPCA.eigenvalues_). Each fit runs in a
// Python process of its own, so that its peak is its own.
func runSklearn(ctx context.Context, o CompareOptions, X *mat.Dense, sigma float64, progress progressFunc) ([]Row, error) {
	dir, err := os.MkdirTemp("", "ikpca-tracking-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, o.Dataset+".csv")
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := table.Write(f, nil, X, 0); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	n, _ := X.Dims()
	k := o.Components
	var rows []Row
	for i, solver := range o.Sklearn {
		progress.call(i, len(o.Sklearn))
		cmd := exec.CommandContext(ctx, o.Python, o.Script, "--points", path, "--sigma", strconv.FormatFloat(sigma, 'g', -1, 64),
			"--components", strconv.Itoa(k), "--solvers", solver)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("tracking: %s %s (%s): %v: %s", o.Python, o.Script, solver, err, strings.TrimSpace(stderr.String()))
		}
		got, err := parseSklearn(out, k)
		if err != nil {
			return nil, fmt.Errorf("tracking: %s (%s): %w", o.Script, solver, err)
		}
		for _, row := range got {
			if row.Points != n {
				return nil, fmt.Errorf("tracking: %s (%s) fitted %d points, want %d", o.Script, solver, row.Points, n)
			}
		}
		rows = append(rows, got...)
	}
	progress.call(len(o.Sklearn), len(o.Sklearn))
	return rows, nil
}

// parseSklearn reads the script's CSV: the header
// method,n,d,solver,components,seconds,rss_before_mib,peak_rss_mib,lambda1…lambdaK and
// a row per fit.
func parseSklearn(out []byte, k int) ([]Row, error) {
	recs, err := csv.NewReader(bytes.NewReader(out)).ReadAll()
	if err != nil {
		return nil, err
	}
	if len(recs) < 2 {
		return nil, fmt.Errorf("no rows in %q", out)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	for _, h := range []string{"n", "solver", "components", "seconds", "rss_before_mib", "peak_rss_mib", "lambda" + strconv.Itoa(k)} {
		if _, ok := col[h]; !ok {
			return nil, fmt.Errorf("no column %q in %q", h, recs[0])
		}
	}
	var rows []Row
	for _, rec := range recs[1:] {
		num := func(name string) (float64, error) {
			v, err := strconv.ParseFloat(rec[col[name]], 64)
			if err != nil {
				return 0, fmt.Errorf("column %s: %w", name, err)
			}
			return v, nil
		}
		var vals [4]float64
		for i, name := range []string{"n", "seconds", "rss_before_mib", "peak_rss_mib"} {
			if vals[i], err = num(name); err != nil {
				return nil, err
			}
		}
		row := Row{Method: MethodSklearn + rec[col["solver"]], Points: int(vals[0]), Seconds: vals[1],
			PeakRSS: (vals[3] - vals[2]) * (1 << 20), Bytes: math.NaN(), Bound: math.NaN(), TrueError: math.NaN(),
			Params: "n_components = " + rec[col["components"]]}
		for j := 1; j <= k; j++ {
			v, err := num("lambda" + strconv.Itoa(j))
			if err != nil {
				return nil, err
			}
			row.Values = append(row.Values, v)
		}
		rows = append(rows, row)
	}
	return rows, nil
}
