package chinsuter

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/native"
)

// agreement is what the two backends must agree on: the eigenvalues of an exact model
// after a stream of 5-D points (to rounding) and of a compressed model on the toy. The
// compressed model's path depends on rounding — the start of each fixed-point search is
// an argmax, and the best point visited is kept — so the two backends' trajectories part,
// and agree only to the method's own accuracy (measured: 0.4 % on λ₁, about the
// model's error against batch kernel PCA).
type agreement struct {
	Backend           string
	Exact, Compressed []float64
}

func agreementRun(t *testing.T) agreement {
	t.Helper()
	native.Use()
	a := agreement{Backend: native.Compiled}
	X := gaussian(120, 5, 31)
	md, err := New(kernel.RBF{Sigma: 2}, X.Slice(0, 3, 0, 5), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 3; i < 120; i += 3 {
		if err := md.AddBatch(X.Slice(i, i+3, 0, 5)); err != nil {
			t.Fatal(err)
		}
	}
	a.Exact = md.Values(nil)
	T := toy(400, 32)
	cs, err := New(kernel.RBF{Sigma: 1}, T.Slice(0, 20, 0, 2), Options{Components: 4, Compression: &Compression{PreImages: 6}})
	if err != nil {
		t.Fatal(err)
	}
	for i := 20; i < 400; i += 20 {
		if err := cs.AddBatch(T.Slice(i, i+20, 0, 2)); err != nil {
			t.Fatal(err)
		}
	}
	a.Compressed = cs.Values(nil)
	return a
}

// TestBackendAgreement writes this backend's results to $IKPCA_AGREE_DIR as
// chinsuter-<backend>.json and compares them with the other backend's, if present (CI
// runs the pure-Go tests first, then -tags openblas).
func TestBackendAgreement(t *testing.T) {
	mine := agreementRun(t)
	dir := os.Getenv("IKPCA_AGREE_DIR")
	if dir == "" {
		return
	}
	raw, err := json.Marshal(mine)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "chinsuter-"+mine.Backend+".json"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, other := range []string{"gonum", "openblas"} {
		if other == mine.Backend {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(dir, "chinsuter-"+other+".json"))
		if err != nil {
			t.Logf("no %s results to compare with (%v)", other, err)
			continue
		}
		var theirs agreement
		if err := json.Unmarshal(raw, &theirs); err != nil {
			t.Fatal(err)
		}
		compare := func(name string, a, b []float64, rel float64) {
			if len(a) != len(b) {
				t.Fatalf("%s: %d and %d components", name, len(a), len(b))
			}
			for j := range a {
				if d := math.Abs(a[j] - b[j]); d > rel*a[0] {
					t.Errorf("%s: λ_%d = %v (%s) and %v (%s)", name, j, a[j], mine.Backend, b[j], other)
				}
			}
		}
		compare("exact", mine.Exact, theirs.Exact, 1e-10)
		compare("compressed", mine.Compressed, theirs.Compressed, 2e-2)
		t.Logf("chinsuter: %s and %s agree", mine.Backend, other)
	}
}
