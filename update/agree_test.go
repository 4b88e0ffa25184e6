package update

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/internal/testmat"
	"github.com/ikpca/ikpca/native"
)

// agreement is a fixed workload whose results the two backends must reproduce within
// rounding: a factorisation, rank-one updates of both signs and bordering steps on the
// Yeast RBF kernel.
type agreement struct {
	Backend string      `json:"backend"`
	Values  [][]float64 `json:"values"`  // eigenvalues after each stage
	Vectors [][]float64 `json:"vectors"` // |first row of U| after each stage (signs are arbitrary)
}

func agreementWorkload(t *testing.T) agreement {
	t.Helper()
	x := data.Yeast().X
	m := 200
	k := rbf(x.Slice(0, m, 0, 8), medianDistance(t, x))
	rng := rand.New(rand.NewPCG(9, 9))
	out := agreement{Backend: native.Active().Name}
	record := func(s *Sym) {
		out.Values = append(out.Values, s.Values(nil))
		row := mat.Row(nil, 0, s.Vectors())
		for i := range row {
			row[i] = math.Abs(row[i])
		}
		out.Vectors = append(out.Vectors, row)
	}
	var s Sym
	if err := s.Factorize(testmat.Leading(k, 150)); err != nil {
		t.Fatal(err)
	}
	record(&s)
	for range 10 {
		v := make([]float64, 150)
		for i := range v {
			v[i] = rng.NormFloat64()
		}
		if err := s.RankOne(rng.NormFloat64(), v); err != nil {
			t.Fatal(err)
		}
	}
	record(&s)
	var g Sym
	for j := range m {
		if err := g.Border(column(k, j, j), k.At(j, j)); err != nil {
			t.Fatal(err)
		}
	}
	record(&g)
	return out
}

// TestBackendAgreement runs the workload and, when IKPCA_AGREE_DIR is set, writes the
// result there as <backend>.json and compares it with the other backend's file if that
// exists. CI runs the suite in the pure-Go build first and then with -tags openblas, so
// the second run checks that the two builds agree. In the openblas build the test also
// compares in-process with gonum's BLAS registered instead of OpenBLAS.
func TestBackendAgreement(t *testing.T) {
	mine := agreementWorkload(t)
	dir := os.Getenv("IKPCA_AGREE_DIR")
	if dir != "" {
		raw, err := json.Marshal(mine)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, mine.Backend+".json"), raw, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, other := range []string{"gonum", "openblas"} {
			if other == mine.Backend {
				continue
			}
			raw, err := os.ReadFile(filepath.Join(dir, other+".json"))
			if err != nil {
				t.Logf("no %s results to compare with (%v)", other, err)
				continue
			}
			var theirs agreement
			if err := json.Unmarshal(raw, &theirs); err != nil {
				t.Fatal(err)
			}
			compareAgreement(t, mine, theirs)
		}
	}
	if native.Compiled == "openblas" {
		withGonum := useGonumBLAS(t)
		theirs := agreementWorkload(t)
		withGonum()
		compareAgreement(t, mine, theirs)
	}
}

func compareAgreement(t *testing.T, a, b agreement) {
	t.Helper()
	if len(a.Values) != len(b.Values) {
		t.Fatalf("%s and %s: %d and %d stages", a.Backend, b.Backend, len(a.Values), len(b.Values))
	}
	for st := range a.Values {
		n := len(a.Values[st])
		norm := math.Max(math.Abs(a.Values[st][0]), math.Abs(a.Values[st][n-1]))
		if d := testmat.MaxAbsDiff(a.Values[st], b.Values[st]); d > 64*float64(n)*eps*norm {
			t.Errorf("stage %d: eigenvalues of %s and %s differ by %.3g·‖A‖", st, a.Backend, b.Backend, d/norm)
		}
		// Eigenvectors are compared where they are well determined: for eigenvalues
		// separated from their neighbours by more than 1e-6·‖A‖.
		for j := range n {
			gap := math.Inf(1)
			if j > 0 {
				gap = a.Values[st][j] - a.Values[st][j-1]
			}
			if j+1 < n {
				gap = math.Min(gap, a.Values[st][j+1]-a.Values[st][j])
			}
			if gap < 1e-6*norm {
				continue
			}
			if d := math.Abs(a.Vectors[st][j] - b.Vectors[st][j]); d > 64*float64(n)*eps*norm/gap {
				t.Errorf("stage %d: vector %d differs between %s and %s by %.3g (gap %.3g)", st, j, a.Backend, b.Backend, d, gap)
			}
		}
	}
	t.Logf("%s and %s agree on %d stages", a.Backend, b.Backend, len(a.Values))
}
