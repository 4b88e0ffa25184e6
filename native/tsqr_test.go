package native_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack"
	gonumlapack "gonum.org/v1/gonum/lapack/gonum"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/backend"
	"github.com/ikpca/ikpca/internal/testmat"
	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/native"
)

// TestSVDLeftTall checks the chunked SVD of tall matrices (svdTall) against gonum's
// SVD (Dgesvd in Go, called directly: an independent algorithm) and against the
// invariants of a left SVD, for shapes that exercise the chunking — a last chunk of
// up to 2·rows − 1 rows, chunks of 2n rows for wide n, the least tall shapes — and for
// matrices that are hard for it: singular values graded over 14 orders, rank-deficient
// (repeated columns, a zero column), a chunk of zero rows, zero, and entries near the largest
// and the smallest floats. Both backends (the
// compiled-in one, and gonum's under backend.WithGonum). The tolerances: Householder
// QR of n columns has a backward error of about n·ε·‖A‖ (Higham, Accuracy and
// Stability, Thm 19.4), the tree adds one such QR per level and the SVD of R another,
// and the test's own products sum m terms, about √m·ε more (errors of random sign): so
// every quantity below is compared within tol = 32·(n + √m)·ε·σ₁ (σ₁ = 1 for UᵀU),
// which leaves a factor of 50 over the largest error observed (0.019·tol).
func TestSVDLeftTall(t *testing.T) {
	native.Use()
	rng := rand.New(rand.NewPCG(8, 9))
	shapes := [][2]int{{1024, 1}, {1024 + 511, 50}, {5000, 64}, {2100, 260}, {3000, 3}, {1030, 128}}
	for _, sz := range shapes {
		m, n := sz[0], sz[1]
		if !native.TallSVD(m, n) {
			t.Fatalf("%d×%d is not tall", m, n)
		}
		for _, kind := range []string{"gaussian", "graded", "rank-deficient", "zero chunk", "zero", "huge", "tiny"} {
			A := tallMatrix(rng, m, n, kind)
			for _, gonum := range []bool{false, true} {
				name := fmt.Sprintf("%d×%d %s gonum=%v", m, n, kind, gonum)
				s, U := svdLeftOf(t, A, gonum)
				checkLeftSVD(t, name, A, s, U)
			}
		}
	}
	if native.TallSVD(1023, 1) || native.TallSVD(4000, 501) || native.TallSVD(1024, 129) {
		t.Error("tallSVD accepts a matrix of fewer than two chunks or not 8 times taller than wide")
	}
}

// TestSVDLeftTallThreads checks that the chunked SVD gives the same bits on one thread
// as on several: its chunks depend on m and n alone.
func TestSVDLeftTallThreads(t *testing.T) {
	native.Use()
	A := tallMatrix(rand.New(rand.NewPCG(1, 2)), 3000, 40, "graded")
	saved := runtime.GOMAXPROCS(1)
	s1, U1 := svdLeftOf(t, A, false)
	runtime.GOMAXPROCS(4)
	s4, U4 := svdLeftOf(t, A, false)
	runtime.GOMAXPROCS(saved)
	if !slices.Equal(s1, s4) || !slices.Equal(U1.RawMatrix().Data, U4.RawMatrix().Data) {
		t.Error("the chunked SVD differs between 1 and 4 threads")
	}
}

// tallMatrix returns an m×n test matrix of the kind named.
func tallMatrix(rng *rand.Rand, m, n int, kind string) *mat.Dense {
	A := mat.NewDense(m, n, nil)
	for i := range m {
		for j := range n {
			A.Set(i, j, rng.NormFloat64())
		}
	}
	switch kind {
	case "graded": // A·diag(10^(−14j/n)): singular values over 14 orders
		for j := range n {
			f := math.Pow(10, -14*float64(j)/float64(max(n-1, 1)))
			for i := range m {
				A.Set(i, j, f*A.At(i, j))
			}
		}
	case "rank-deficient": // the second half of the columns repeat the first; the last is zero
		for j := n / 2; j < n; j++ {
			for i := range m {
				A.Set(i, j, A.At(i, j-n/2))
			}
		}
		for i := range m {
			A.Set(i, n-1, 0)
		}
	case "zero":
		A.Zero()
	case "huge": // σ₁ up to 8e307: any product or square of entries overflows
		A.Scale(1e306, A)
	case "tiny": // any product or square of entries underflows
		A.Scale(1e-300, A)
	case "zero chunk": // the rows of the second chunk are zero
		rows := native.TallChunkRows(n)
		for i := rows; i < min(2*rows, m); i++ {
			for j := range n {
				A.Set(i, j, 0)
			}
		}
	}
	return A
}

// svdLeftOf returns SVDLeft's values and left vectors of A, computed by gonum's
// backend if gonum is set.
func svdLeftOf(t *testing.T, A *mat.Dense, gonum bool) ([]float64, *mat.Dense) {
	t.Helper()
	m, n := A.Dims()
	a := slices.Clone(A.RawMatrix().Data)
	s, u := make([]float64, n), make([]float64, m*n)
	var err error
	run := func() { err = native.SVDLeft(m, n, a, n, s, u, n) }
	if gonum {
		backend.WithGonum(run)
	} else {
		run()
	}
	if err != nil {
		t.Fatal(err)
	}
	return s, mat.NewDense(m, n, u)
}

// checkLeftSVD checks s and U as the values and left vectors of A: s against gonum's
// mat.SVD, descending; U orthonormal; U·Uᵀ·A = A (U spans A's range); ‖Aᵀu_j‖ = σ_j.
func checkLeftSVD(t *testing.T, name string, A *mat.Dense, s []float64, U *mat.Dense) {
	t.Helper()
	m, n := A.Dims()
	// The reference is gonum's Go Dgesvd called directly: under Use, mat.SVD would call
	// the backend under test.
	a := slices.Clone(A.RawMatrix().Data)
	want := make([]float64, n)
	var impl gonumlapack.Implementation
	q := make([]float64, 1)
	impl.Dgesvd(lapack.SVDNone, lapack.SVDNone, m, n, a, n, want, nil, 1, nil, 1, q, -1)
	work := make([]float64, int(q[0]))
	if !impl.Dgesvd(lapack.SVDNone, lapack.SVDNone, m, n, a, n, want, nil, 1, nil, 1, work, len(work)) {
		t.Fatalf("%s: reference SVD failed", name)
	}
	scale := 32 * (float64(n) + math.Sqrt(float64(m))) * vec.Roundoff
	tol := scale * want[0]
	for j := range n {
		if math.Abs(s[j]-want[j]) > tol {
			t.Errorf("%s: σ_%d = %v, want %v (tolerance %.1e)", name, j, s[j], want[j], tol)
			return
		}
		if j > 0 && s[j] > s[j-1] {
			t.Errorf("%s: σ_%d = %v above σ_%d = %v", name, j, s[j], j-1, s[j-1])
			return
		}
	}
	if e := testmat.Orthogonality(U); !(e <= scale) {
		t.Errorf("%s: max |UᵀU − I| = %.2e", name, e)
		return
	}
	var uta, back mat.Dense
	uta.Mul(U.T(), A)
	back.Mul(U, &uta)
	back.Sub(&back, A)
	if d := mat.Norm(&back, math.Inf(1)) / float64(n); d > tol {
		t.Errorf("%s: ‖U·UᵀA − A‖∞/n = %.2e > %.1e", name, d, tol)
	}
	for j := range n {
		if d := math.Abs(mat.Norm(uta.RowView(j), 2) - s[j]); d > tol {
			t.Errorf("%s: ‖Aᵀu_%d‖ − σ = %.2e", name, j, d)
			return
		}
	}
}

// BenchmarkSVDLeftTall times SVDLeft of a 19,020×50 matrix (a Polish's orthonormalisation
// of MAGIC's vectors) in chunks (svdTall) and as one LAPACK call (svdLeft: dgesdd with
// OpenBLAS, on its threads), each round running both on fresh copies, and reports each
// one's median seconds and their ratio; and, for the scale of the hardware, the time of
// the Gram matrix AᵀA by one dgemm (2mn² flops, as many as one of the QRs).
func BenchmarkSVDLeftTall(b *testing.B) {
	native.Use()
	const m, n = 19020, 50
	A := tallMatrix(rand.New(rand.NewPCG(5, 6)), m, n, "gaussian").RawMatrix().Data
	a := make([]float64, m*n)
	s, u := make([]float64, n), make([]float64, m*n)
	g := make([]float64, n*n)
	var chunked, whole, gram []float64
	for b.Loop() {
		copy(a, A)
		t := time.Now()
		if err := native.SVDTall(m, n, a, n, s, u, n); err != nil {
			b.Fatal(err)
		}
		chunked = append(chunked, time.Since(t).Seconds())
		copy(a, A)
		t = time.Now()
		if err := native.SVDLeftLAPACK(m, n, a, n, s, u, n); err != nil {
			b.Fatal(err)
		}
		whole = append(whole, time.Since(t).Seconds())
		t = time.Now()
		native.Gemm(blas.Trans, blas.NoTrans, 1, blas64.General{Rows: m, Cols: n, Stride: n, Data: A}, blas64.General{Rows: m, Cols: n, Stride: n, Data: A}, 0, blas64.General{Rows: n, Cols: n, Stride: n, Data: g})
		gram = append(gram, time.Since(t).Seconds())
	}
	c, w := vec.Median(chunked), vec.Median(whole)
	b.ReportMetric(c, "chunked-s")
	b.ReportMetric(w, "dgesdd-s")
	b.ReportMetric(c/w, "chunked/dgesdd")
	b.ReportMetric(c/vec.Median(gram), "chunked/gram-dgemm")
}

// FuzzSVDLeftTall checks SVDLeft's chunked factorisation on tall matrices of any shape
// it takes — n from 1 to 64 columns, m from the least tall (max(1024, 8n) rows) to 2047
// rows more, so that the last chunk takes any remainder — of Gaussian entries scaled
// by a power of two from 2⁻⁹⁰⁰ to 2⁹⁰⁰, with some columns zeroed or repeated, against
// gonum's Dgesvd and the invariants of checkLeftSVD, in the compiled-in backend.
func FuzzSVDLeftTall(f *testing.F) {
	native.Use()
	f.Add(uint16(0), uint8(49), uint64(1), int16(0), uint8(0))
	f.Add(uint16(2047), uint8(0), uint64(2), int16(900), uint8(3))
	f.Add(uint16(511), uint8(63), uint64(3), int16(-900), uint8(255))
	f.Fuzz(func(t *testing.T, extra uint16, cols uint8, seed uint64, exp int16, zeroed uint8) {
		n := 1 + int(cols)%64
		m := max(1024, 8*n) + int(extra)%2048
		rng := rand.New(rand.NewPCG(seed, 7))
		A := tallMatrix(rng, m, n, "gaussian")
		A.Scale(math.Ldexp(1, int(exp)%901), A)
		for j := range n {
			switch (int(zeroed) >> (j % 8)) & 3 {
			case 1:
				A.Slice(0, m, j, j+1).(*mat.Dense).Zero()
			case 2:
				if j > 0 {
					A.Slice(0, m, j, j+1).(*mat.Dense).Copy(A.Slice(0, m, j-1, j))
				}
			}
		}
		s, U := svdLeftOf(t, A, false)
		checkLeftSVD(t, fmt.Sprintf("%d×%d seed %d 2^%d zeroed %#x", m, n, seed, int(exp)%901, zeroed), A, s, U)
	})
}
