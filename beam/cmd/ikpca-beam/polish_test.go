package main

import (
	"context"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ikpca/ikpca/beam/ikpcabeam"
	"github.com/ikpca/ikpca/beam/internal/beamtest"
	"github.com/ikpca/ikpca/internal/testmat"
	"github.com/ikpca/ikpca/internal/wiretest"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/kpca"
	"gonum.org/v1/gonum/mat"
)

// TestPolishMode runs --mode=polish on a CSV file with a bad line: the certificate's
// intervals hold the batch eigenvalues of K′ (computed here from the points and the
// certificate's σ), every point is scored, the bad line is a dead letter, and the work
// directory is gone.
func TestPolishMode(t *testing.T) {
	dir := beamtest.TempDir(t)
	X, text := toyInput(300, ',')
	in := filepath.Join(dir, "in.csv")
	beamtest.WriteFile(t, in, []byte(text+"1,x,2\n"))
	o := options{mode: "polish", method: "skpca", input: in, sep: ",", format: "csv", seed: 1, block: 256,
		certificate: filepath.Join(dir, "cert.json"), output: filepath.Join(dir, "scores"),
		k: 3, rank: 8, passes: 6, shards: 3, maxDead: 0.1, limitDead: true}
	if err := run(context.Background(), o, io.Discard); err != nil {
		t.Fatal(err)
	}
	checkCertificate(t, o.certificate, X)
	scores := readDead(t, o.output) // the shards' lines, scores here
	if len(scores) != 300 {
		t.Errorf("%d scores, want 300", len(scores))
	}
	dead := readDead(t, o.output+".dead")
	if len(dead) != 1 || !strings.Contains(dead[0], "1,x,2") {
		t.Errorf("dead letters %q, want the bad line", dead)
	}
	if _, err := os.Stat(o.certificate + ".work"); err == nil {
		t.Errorf("the default work directory %s.work is left", o.certificate)
	}
}

// checkCertificate reads a polish's certificate of the 300 points X, 3 values, and
// checks it against the batch eigenvalues of K′ (computed here from the points and the
// certificate's kernel): its intervals hold them, up to the batch's own rounding
// (1e-12·λ₁), and its values are within 1e-10·λ₁ of them.
func checkCertificate(t *testing.T, file string, X *mat.Dense) ikpcabeam.PolishCertificate {
	t.Helper()
	var c ikpcabeam.PolishCertificate
	if err := json.Unmarshal(beamtest.ReadFile(t, file), &c); err != nil {
		t.Fatal(err)
	}
	if c.Points != 300 || len(c.Values) != 3 || c.Kernel.Name != "rbf" || !(c.Kernel.Sigma > 0) {
		t.Fatalf("certificate %+v", c)
	}
	k, err := kernel.New(c.Kernel)
	if err != nil {
		t.Fatal(err)
	}
	batch, _ := testmat.Eigen(t, kernel.Centre(kernel.Matrix(k, X)))
	for j, v := range c.Values {
		if tol := 1e-12 * batch[0]; batch[j] < c.Lower[j]-tol || batch[j] > c.Upper[j]+tol {
			t.Errorf("batch value %d %.17g outside [%.17g, %.17g]", j, batch[j], c.Lower[j], c.Upper[j])
		}
		if math.Abs(v-batch[j]) > 1e-10*batch[0] {
			t.Errorf("value %d %.17g, batch %.17g", j, v, batch[j])
		}
	}
	return c
}

// TestPolishModeStart runs --mode=polish --start=<a kpca checkpoint of 50 of the 300
// points>: after 3 passes its values are within 1e-10·λ₁ of the batch values (as TestPolishMode's
// after 6 passes from a random start), and the
// intervals hold them. A --start the polish cannot use is refused before anything runs:
// the certificate's own file, a model of another dimension, a file that is not a model,
// a model that the scores' prefix would replace; and a --model (the polished model's
// file) that is the start model or an input. With --model the polished model is
// written: a kpca checkpoint of the points with the certificate's values.
func TestPolishModeStart(t *testing.T) {
	dir := beamtest.TempDir(t)
	X, text := toyInput(300, ',')
	in := filepath.Join(dir, "in.csv")
	beamtest.WriteFile(t, in, []byte(text))
	k := kernel.RBF{Sigma: 0.5}
	model, err := kpca.Fit(k, X.Slice(0, 50, 0, 3), kpca.Options{Components: 8, Rank: 8})
	if err != nil {
		t.Fatal(err)
	}
	start := filepath.Join(dir, "start.ikpca")
	beamtest.WriteFile(t, start, wiretest.Marshal(t, model))
	o := options{mode: "polish", method: "skpca", input: in, sep: ",", format: "csv", seed: 1, block: 256, sigma: 0.5,
		certificate: filepath.Join(dir, "cert.json"), output: filepath.Join(dir, "scores"), start: start, model: filepath.Join(dir, "polished.ikpca"),
		k: 3, rank: 8, passes: 3, shards: 2, maxDead: 0.1, limitDead: true}
	if err := run(context.Background(), o, io.Discard); err != nil {
		t.Fatal(err)
	}
	c := checkCertificate(t, o.certificate, X)
	if n := len(readDead(t, o.output)); n != 300 {
		t.Errorf("%d scores, want 300", n)
	}
	// The polished model: a kpca checkpoint of the 300 points with the certificate's values.
	polished, err := ikpcabeam.DecodeModel(beamtest.ReadFile(t, o.model))
	if err != nil {
		t.Fatal(err)
	}
	if v := polished.Values(nil); polished.Len() != 300 || len(v) != 3 || math.Abs(v[0]-c.Values[0]) > 1e-12*v[0] {
		t.Errorf("polished model of %d points, values %v; the certificate's %v", polished.Len(), v, c.Values)
	}

	other, err := kpca.Fit(k, X.Slice(0, 50, 0, 2), kpca.Options{Components: 8, Rank: 8})
	if err != nil {
		t.Fatal(err)
	}
	flat := filepath.Join(dir, "flat.ikpca")
	beamtest.WriteFile(t, flat, wiretest.Marshal(t, other))
	shard := filepath.Join(dir, "out-00000-of-00001.csv")
	beamtest.WriteFile(t, shard, wiretest.Marshal(t, model))
	for name, edit := range map[string]func(*options){
		"the certificate":     func(o *options) { o.start = o.certificate },
		"dimension 2":         func(o *options) { o.start = flat },
		"not a model":         func(o *options) { o.start = in },
		"a shard of --output": func(o *options) { o.start, o.output = shard, filepath.Join(dir, "out") },
		"the --model":         func(o *options) { o.model = o.start },
		"--model an input":    func(o *options) { o.model = in },
	} {
		bad := o
		bad.certificate = filepath.Join(dir, "cert2.json")
		edit(&bad)
		if err := run(context.Background(), bad, io.Discard); err == nil {
			t.Errorf("--start %s: no error", name)
		} else {
			t.Logf("--start %s: %v", name, err)
		}
	}
}
