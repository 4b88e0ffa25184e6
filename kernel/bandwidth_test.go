package kernel

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
)

// TestDefaultBandwidthSmall: with at most BandwidthSample rows every row is used, so the
// result is exactly MedianDistance of all of them.
func TestDefaultBandwidthSmall(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for _, n := range []int{2, 3, 50, BandwidthSample} {
		X := randDense(rng, n, 3)
		want, err := MedianDistance(X, n)
		if err != nil {
			t.Fatal(err)
		}
		got, err := DefaultBandwidth(X)
		if err != nil || got != want {
			t.Errorf("n=%d: DefaultBandwidth = %v, %v; want %v (every row)", n, got, err, want)
		}
		// Any mat.Matrix: the transpose of the transpose.
		got, err = DefaultBandwidth(mat.Transpose{Matrix: X.T()})
		if err != nil || got != want {
			t.Errorf("n=%d: DefaultBandwidth(Transpose) = %v, %v; want %v", n, got, err, want)
		}
	}
}

// TestDefaultBandwidthSample: with more rows, the subsample is the same on every call
// and, unlike the first rows, represents the whole data set. The points form three
// clusters, 10 apart along the first axis, stored one after the other as in a file
// sorted by class: the first 1000 rows are mostly in the first cluster and their median
// distance is a within-cluster one (below √2), while over the whole data a third of the
// pairs are within clusters, four ninths 10 apart and two ninths 20 apart, so the median
// is a distance between neighbouring clusters, within √2 of 10.
func TestDefaultBandwidthSample(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	const per = 800
	X := randDense(rng, 3*per, 2) // U[0,1)²: within-cluster distances below √2
	for i := range 3 * per {
		X.Set(i, 0, X.At(i, 0)+10*float64(i/per))
	}
	first, err := MedianDistance(X, BandwidthSample)
	if err != nil || first > math.Sqrt2 {
		t.Fatalf("first rows: %v, %v; want a within-cluster distance", first, err)
	}
	got, err := DefaultBandwidth(X)
	if err != nil {
		t.Fatal(err)
	}
	// The median stays among the neighbouring-cluster distances unless the sample's
	// cluster shares move from 1/3 by more than about 0.1 (a third of the pairs within,
	// two ninths 20 apart, both far from one half); the shares are hypergeometric with
	// sd ≈ 0.013, so this holds for any seed.
	if got < 10-math.Sqrt2 || got > 10+math.Sqrt2 {
		t.Errorf("DefaultBandwidth = %v, want a neighbouring-cluster distance near 10", got)
	}
	again, err := DefaultBandwidth(X)
	if err != nil || again != got {
		t.Errorf("second call: %v, %v; first %v (the sample must be seeded)", again, err, got)
	}

	// On unclustered data the subsample's median is close to the median over all pairs:
	// the sample median of the distances of m random points has a relative standard
	// error of order 1/√m ≈ 3 % at most (far less in practice); 5 % leaves room.
	Y := randDense(rng, 1500, 4)
	all, err := MedianDistance(Y, 1500)
	if err != nil {
		t.Fatal(err)
	}
	got, err = DefaultBandwidth(Y)
	if err != nil || math.Abs(got-all) > 0.05*all {
		t.Errorf("DefaultBandwidth = %v, %v; median over all pairs %v", got, err, all)
	}
}

// lazyPoints is a matrix of a caller's own type whose rows are computed when read, of
// any number: row i is a point of a seeded generator, and rows counts the rows read.
type lazyPoints struct {
	n, d int
	rows map[int]bool
}

func (l *lazyPoints) Dims() (int, int) { return l.n, l.d }
func (l *lazyPoints) T() mat.Matrix    { return mat.Transpose{Matrix: l} }
func (l *lazyPoints) At(i, j int) float64 {
	l.rows[i] = true
	return rand.New(rand.NewPCG(uint64(i), uint64(j))).NormFloat64()
}

// TestDefaultBandwidthLazy: DefaultBandwidth reads only its sample of X, so that the
// bandwidth of a large matrix costs its sample: of 2⁴⁰ rows computed when read, it reads
// BandwidthSample, and gives the median distance of those rows, bit for bit.
func TestDefaultBandwidthLazy(t *testing.T) {
	X := &lazyPoints{n: 1 << 40, d: 3, rows: map[int]bool{}}
	got, err := DefaultBandwidth(X)
	if err != nil {
		t.Fatal(err)
	}
	if len(X.rows) != BandwidthSample {
		t.Errorf("DefaultBandwidth read %d rows, want its sample of %d", len(X.rows), BandwidthSample)
	}
	rows := bandwidthRows(X.n)
	S := mat.NewDense(len(rows), X.d, nil)
	for p, i := range rows {
		for j := range X.d {
			S.Set(p, j, X.At(i, j))
		}
	}
	if want, err := MedianDistance(S, len(rows)); err != nil || got != want {
		t.Errorf("DefaultBandwidth = %v, want the median distance of its sample %v (%v)", got, want, err)
	}
}

func TestDefaultBandwidthErrors(t *testing.T) {
	cases := []struct {
		name string
		X    mat.Matrix
		msg  string
		kind error
	}{
		{"nil", nil, "nil", ikpca.ErrArgument},
		{"typed nil", (*mat.Dense)(nil), "nil", ikpca.ErrArgument},
		{"one row", line(1), "at least 2", ikpca.ErrEmpty},
		{"no columns", emptyCols{}, "at least 2", ikpca.ErrEmpty},
		{"NaN", line(1, math.NaN(), 3), "X[1,0] = NaN is not finite", ikpca.ErrNonFinite},
		{"all equal", line(2, 2, 2, 2), "median distance is 0", ikpca.ErrArgument},
		{"mostly equal", line(1, 1, 1, 1, 4), "median distance is 0", ikpca.ErrArgument},
		{"overflow", line(-1e300, 1e300, 0), "overflow", ikpca.ErrArgument},
	}
	for _, c := range cases {
		got, err := DefaultBandwidth(c.X)
		if err == nil || !strings.Contains(err.Error(), c.msg) || !errors.Is(err, c.kind) {
			t.Errorf("%s: DefaultBandwidth = %v, %v; want an error with %q, wrapping %v", c.name, got, err, c.msg, c.kind)
		}
	}
	// A non-finite coordinate of a sampled data set is named by its row in X, not in the
	// sample: two thirds of the rows hold one, all beyond BandwidthSample, so that the
	// sample of a third holds some (the chance it does not is below 10⁻¹⁰⁰) and the row
	// named is at least BandwidthSample, which no index into the sample is.
	big := randDense(rand.New(rand.NewPCG(25, 26)), 3*BandwidthSample, 2)
	for i := BandwidthSample; i < 3*BandwidthSample; i++ {
		big.Set(i, 1, math.Inf(1))
	}
	_, err := DefaultBandwidth(big)
	var i, j int
	if err != nil {
		msg := err.Error()
		if at := strings.Index(msg, "X["); at >= 0 {
			fmt.Sscanf(msg[at:], "X[%d,%d]", &i, &j)
		}
	}
	if !errors.Is(err, ErrNonFinite) || i < BandwidthSample || j != 1 {
		t.Errorf("sampled Inf: %v; want a row of X from %d on, column 1", err, BandwidthSample)
	}
}

// emptyCols is a mat.Matrix with rows and no columns, which mat.Dense cannot be.
type emptyCols struct{ mat.Matrix }

func (emptyCols) Dims() (int, int) { return 3, 0 }
