package ikpcabeam

import (
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/internal/testmat"
	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/internal/wiretest"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/modeltest"
	"github.com/ikpca/ikpca/stream"
)

// fill adds the rows of X to m.
func fill(t *testing.T, m interface{ Add([]float64) error }, X *mat.Dense) {
	t.Helper()
	n, _ := X.Dims()
	testmat.AddRows(t, m, X, 0, n)
}

// filledSKPCA returns an SKPCA of dimension 3 with testKernel and testOptions, the
// rows of X added.
func filledSKPCA(t *testing.T, X *mat.Dense) *SKPCA {
	t.Helper()
	m, err := NewSKPCA(testKernel, 3, testOptions)
	if err != nil {
		t.Fatal(err)
	}
	fill(t, m, X)
	return m
}

// TestSKPCAEncoding: a model decoded from the core's encoding has the encoded one's
// Values and scores bit for bit, its counts and bound, and continues as it would have:
// the same points added to both give the same Values bit for bit.
func TestSKPCAEncoding(t *testing.T) {
	X, more, P := curve(150, 3, 1), curve(100, 3, 4), curve(20, 3, 2)
	for _, n := range []int{0, 1, 5, 150} {
		m := filledSKPCA(t, X.Slice(0, n, 0, 3).(*mat.Dense))
		b := wiretest.Marshal(t, m)
		var back SKPCA
		if err := back.UnmarshalBinary(b); err != nil {
			t.Fatalf("n = %d: %v", n, err)
		}
		if !vec.SameBits(m.Values(nil), back.Values(nil)) {
			t.Errorf("n = %d: Values %v, decoded %v", n, m.Values(nil), back.Values(nil))
		}
		if back.Len() != n || back.Sketch().Frobenius2() != m.Sketch().Frobenius2() || back.ErrorBound() != m.ErrorBound() {
			t.Errorf("n = %d: Len, ‖Z‖_F², Δ decoded as %d %v %v, want %d %v %v",
				n, back.Len(), back.Sketch().Frobenius2(), back.ErrorBound(), n, m.Sketch().Frobenius2(), m.ErrorBound())
		}
		if k := len(m.Values(nil)); k > 0 {
			var Y, Z mat.Dense
			if err := m.Transform(&Y, P, k); err != nil {
				t.Fatal(err)
			}
			if err := back.Transform(&Z, P, k); err != nil {
				t.Fatal(err)
			}
			if !vec.SameBits(rawOf(&Y), rawOf(&Z)) {
				t.Errorf("n = %d: scores differ after decoding", n)
			}
		}
		fill(t, m, more)
		fill(t, &back, more)
		if !vec.SameBits(m.Values(nil), back.Values(nil)) {
			t.Errorf("n = %d: after %d more points, Values %v, decoded %v", n, 100, m.Values(nil), back.Values(nil))
		}
		if d := back.ErrorBound() - m.ErrorBound(); d > 1e-12*m.ErrorBound() || d < -1e-12*m.ErrorBound() {
			t.Errorf("n = %d: Δ %v, decoded %v", n, m.ErrorBound(), back.ErrorBound())
		}
	}
}

// TestSKPCAMerge: parts merged in any order, some through their encodings, satisfy the
// sketch's certificate over all the points.
func TestSKPCAMerge(t *testing.T) {
	X := curve(900, 3, 5)
	part := func(lo, hi int, encode bool) *SKPCA {
		m := filledSKPCA(t, X.Slice(lo, hi, 0, 3).(*mat.Dense))
		if !encode {
			return m
		}
		b := wiretest.Marshal(t, m)
		var back SKPCA
		if err := back.UnmarshalBinary(b); err != nil {
			t.Fatal(err)
		}
		return &back
	}
	a, b, c := part(0, 200, true), part(200, 650, false), part(650, 900, true)
	if err := c.Merge(a); err != nil {
		t.Fatal(err)
	}
	if err := b.Merge(c); err != nil {
		t.Fatal(err)
	}
	certify(t, b, X)
}

// TestSKPCABadInput: bad points and merges are errors of the right kind and leave the
// model exactly as it was.
func TestSKPCABadInput(t *testing.T) {
	m := filledSKPCA(t, curve(50, 3, 1))
	before := wiretest.Marshal(t, m)
	other := testOptions
	other.Seed++
	o, err := NewSKPCA(testKernel, 3, other)
	if err != nil {
		t.Fatal(err)
	}
	d4, err := NewSKPCA(testKernel, 4, testOptions)
	if err != nil {
		t.Fatal(err)
	}
	inf := math.Inf(1)
	for _, c := range []struct {
		name string
		err  error
		run  func() error
	}{
		{"short point", ikpca.ErrDimension, func() error { return m.Add([]float64{1, 2}) }},
		{"nil point", ikpca.ErrDimension, func() error { return m.Add(nil) }},
		{"infinite coordinate", ikpca.ErrNonFinite, func() error { return m.Add([]float64{1, inf, 2}) }},
		{"other options", ikpca.ErrArgument, func() error { return m.Merge(o) }},
		{"other dimension", ikpca.ErrArgument, func() error { return m.Merge(d4) }},
		{"itself", ikpca.ErrArgument, func() error { return m.Merge(m) }},
		{"nil", ikpca.ErrArgument, func() error { return m.Merge(nil) }},
		{"nil *SKPCA", ikpca.ErrArgument, func() error { return m.Merge((*SKPCA)(nil)) }},
	} {
		if err := c.run(); !errors.Is(err, c.err) {
			t.Errorf("%s: error %v, want %v", c.name, err, c.err)
		}
		after := wiretest.Marshal(t, m)
		if string(after) != string(before) {
			t.Errorf("%s: the model changed", c.name)
		}
	}
	for _, c := range []struct {
		k    kernel.Kernel
		opts stream.SKPCAOptions
	}{
		{testKernel, stream.SKPCAOptions{}}, {testKernel, stream.SKPCAOptions{Features: 63, Sketch: 2}},
		{kernel.RBF{}, stream.SKPCAOptions{Features: 64, Sketch: 2}}, {testKernel, stream.SKPCAOptions{Features: 64}},
		{nil, testOptions}, {kernel.Laplacian{Sigma: 1}, testOptions},
	} {
		if _, err := NewSKPCA(c.k, 3, c.opts); !errors.Is(err, ErrArgument) {
			t.Errorf("NewSKPCA(%v, %+v): error %v, want ErrArgument", c.k, c.opts, err)
		}
	}
}

// TestSKPCAConformance: SKPCA passes the ikpca.Model suite, centred and not, its
// encoding as the checkpoint.
func TestSKPCAConformance(t *testing.T) {
	model := func(m ikpca.Model) *SKPCA { return m.(*SKPCA) }
	for _, uncentred := range []bool{false, true} {
		name := "centred"
		if uncentred {
			name = "uncentred"
		}
		t.Run(name, func(t *testing.T) {
			modeltest.Run(t, modeltest.Subject{
				Uncentred: uncentred,
				New: func(X *mat.Dense) (ikpca.Incremental, error) {
					_, d := X.Dims()
					s, err := NewSKPCA(kernel.RBF{Sigma: 1}, d, stream.SKPCAOptions{Features: 64, Sketch: 5, Seed: 1, Uncentred: uncentred})
					if err != nil {
						return nil, err
					}
					n, _ := X.Dims()
					for i := range n {
						if err := s.Add(X.RawRowView(i)); err != nil {
							return nil, err
						}
					}
					return s, nil
				},
				Project: func(m ikpca.Model, X mat.Matrix, k int) (*mat.Dense, error) {
					var W, Z, Y mat.Dense
					model(m).VectorsTo(&W)
					if err := model(m).Map().Transform(&Z, X); err != nil {
						return nil, err
					}
					mean := model(m).Mean(nil) // zero uncentred
					r, D := Z.Dims()
					for i := range r {
						for j := range D {
							Z.Set(i, j, Z.At(i, j)-mean[j])
						}
					}
					Y.Mul(&Z, W.Slice(0, D, 0, k))
					return &Y, nil
				},
				Signed: func(m ikpca.Model) (*mat.Dense, error) {
					var W mat.Dense
					model(m).VectorsTo(&W)
					return &W, nil
				},
			})
		})
	}
}

// TestSKPCADecodeErrors: bytes that are no SKPCA encoding, a truncated or corrupted one,
// are ErrModel errors, and leave the receiver unchanged.
func TestSKPCADecodeErrors(t *testing.T) {
	m := filledSKPCA(t, curve(30, 3, 1))
	good := wiretest.Marshal(t, m)
	flipped := append([]byte(nil), good...)
	flipped[len(flipped)/2] ^= 1
	for name, b := range map[string][]byte{"truncated": good[:len(good)-1], "a flipped bit": flipped, "magic only": good[:8]} {
		back := &SKPCA{}
		if err := back.UnmarshalBinary(b); !errors.Is(err, ErrModel) || back.SKPCA != nil {
			t.Errorf("%s: error %v, want ErrModel and no model", name, err)
		}
		if _, err := DecodeModel(b); !errors.Is(err, ErrModel) {
			t.Errorf("%s: DecodeModel error %v, want ErrModel", name, err)
		}
	}
}
