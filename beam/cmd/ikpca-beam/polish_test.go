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
	"github.com/ikpca/ikpca/kernel"
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
	var c ikpcabeam.PolishCertificate
	if err := json.Unmarshal(beamtest.ReadFile(t, o.certificate), &c); err != nil {
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
		// The intervals hold the batch values, up to the batch's own rounding.
		if tol := 1e-12 * batch[0]; batch[j] < c.Lower[j]-tol || batch[j] > c.Upper[j]+tol {
			t.Errorf("batch value %d %.17g outside [%.17g, %.17g]", j, batch[j], c.Lower[j], c.Upper[j])
		}
		if math.Abs(v-batch[j]) > 1e-10*batch[0] {
			t.Errorf("value %d %.17g, batch %.17g", j, v, batch[j])
		}
	}
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
