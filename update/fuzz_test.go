package update

import (
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/synth"
	"github.com/ikpca/ikpca/internal/testmat"
)

// fuzzCase is a decomposition and a row to remove, decoded from fuzz bytes.
type fuzzCase struct {
	a      *mat.SymDense // the matrix
	values []float64     // for SetEigen (nil: Factorize a)
	vecs   *mat.Dense
	i      int
}

// decodeRemoval turns fuzz bytes into a removal: a header byte (size n ≤ 8 and kind), a
// byte for the row (−1 … n, out of range at both ends), then float64 values. Kind 0 is a
// symmetric matrix from its upper triangle; kind 1 is H·diag(d)·H with H the reflection
// whose row i is z/‖z‖, given by d and z, so that the removal restricts diag(d) to z⊥
// exactly as fuzzed (equal, clustered and zero eigenvalues, zero and tiny weights). The
// values are scaled by a power of two (exactly) to a largest magnitude in [½, 1): the
// update is scale-equivariant, and the residuals of a matrix near overflow cannot be
// formed.
func decodeRemoval(data []byte) (fuzzCase, bool) {
	if len(data) < 2 {
		return fuzzCase{}, false
	}
	n := int(data[0]%8) + 1
	structured := data[0]&0x80 != 0
	i := int(data[1]%byte(n+2)) - 1
	data = data[2:]
	need := n * (n + 1) / 2
	if structured {
		need = 2 * n
	}
	if len(data) < 8*need {
		return fuzzCase{}, false
	}
	x := make([]float64, need)
	for j := range x {
		x[j] = math.Float64frombits(binary.LittleEndian.Uint64(data[8*j:]))
		if math.IsNaN(x[j]) || math.IsInf(x[j], 0) {
			return fuzzCase{}, false // non-finite input is Factorize's and SetEigen's to refuse
		}
	}
	c := fuzzCase{i: i}
	if !structured {
		scaleTo1(x)
		c.a = mat.NewSymDense(n, nil)
		p := 0
		for r := range n {
			for col := r; col < n; col++ {
				c.a.SetSym(r, col, x[p])
				p++
			}
		}
		return c, true
	}
	d, z := x[:n], x[n:]
	scaleTo1(d)
	scaleTo1(z)
	var zz float64
	for _, v := range z {
		zz += v * v
	}
	if zz == 0 {
		return fuzzCase{}, false
	}
	slices.Sort(d)
	c.values = d
	c.vecs = householder(z, min(max(i, 0), n-1))
	c.a = synth.Reconstruct(d, c.vecs)
	return c, true
}

// scaleTo1 multiplies x by the power of two that brings max|x| into [½, 1).
func scaleTo1(x []float64) {
	var big float64
	for _, v := range x {
		big = math.Max(big, math.Abs(v))
	}
	if big == 0 {
		return
	}
	_, e := math.Frexp(big)
	for j := range x {
		x[j] = math.Ldexp(x[j], -e)
	}
}

// FuzzRemove removes a row and column of arbitrary symmetric matrices and checks the
// result against a fresh batch decomposition of what is left (checkRemoved: residual,
// orthogonality, eigenvalues, interlacing, trace, the deleted row), and an index out of
// range against ErrIndex with the state unchanged.
func FuzzRemove(f *testing.F) {
	enc := func(h, i byte, x ...float64) []byte {
		out := []byte{h, i}
		for _, v := range x {
			out = binary.LittleEndian.AppendUint64(out, math.Float64bits(v))
		}
		return out
	}
	f.Add(enc(2, 1, 1, 2, 3, 4, 5, 6))                                  // 3×3, remove row 0
	f.Add(enc(0, 1, 5))                                                 // 1×1
	f.Add(enc(1, 3, 1, 0, 1))                                           // 2×2, remove row 1
	f.Add(enc(1, 0, 1, 0, 1))                                           // index −1
	f.Add(enc(3, 2, 1, 0, 0, 0, 2, 0, 0, 2, 0, 3))                      // diagonal, equal values
	f.Add(enc(2, 2, 1, 1, 1, 1, 1, 1))                                  // all ones: rank one
	f.Add(enc(0x80|3, 1, 1, 2, 2, 3, 1, 1, 1, 1))                       // H·diag·H, equal poles
	f.Add(enc(0x80|3, 2, 0, 0, 0, 1, 0, 1e-20, 0, 1))                   // tiny weight
	f.Add(enc(0x80|4, 3, -1, 1e-300, 1, 1e300, 1, 1e-200, 1e100, 2, 3)) // huge range
	f.Fuzz(func(t *testing.T, data []byte) {
		c, ok := decodeRemoval(data)
		if !ok {
			return
		}
		var s Sym
		if c.values != nil {
			if err := s.SetEigen(c.values, c.vecs); err != nil {
				return // H is not orthogonal to 1e-8 (z with entries far below ‖z‖·ε)
			}
		} else if err := s.Factorize(c.a); err != nil {
			t.Fatalf("Factorize: %v", err)
		} else if r := testmat.Residual(c.a, s.Values(nil), s.Vectors()); !(r <= 1e-10) {
			// gonum v0.17's Dsyev (the pure-Go Factorize) returns eigenvalues ±2e121 for
			// matrices of norm 0.5 with subnormal entries, such as the 4×4 with
			// A₀₂ = 4.3e-314 and A₁₃ = 0.506 (and zeros): not a decomposition to remove from.
			// Residuals up to 1e-13 occur too; checkRemoved allows for them.
			t.Logf("Factorize failed: residual %.3g", r)
			return
		}
		n := s.Len()
		if c.i < 0 || c.i >= n {
			was := snap(&s)
			if err := s.Remove(c.i); !errors.Is(err, ErrIndex) {
				t.Fatalf("Remove(%d) of %d: %v", c.i, n, err)
			}
			if !snap(&s).equal(was) {
				t.Fatal("state changed")
			}
			return
		}
		r := before(&s, c.a, c.i)
		r.batchMayFail = true
		r.inputResidual = testmat.Residual(c.a, s.Values(nil), s.Vectors())
		r.inputOrth = testmat.Orthogonality(s.Vectors())
		if err := s.Remove(c.i); err != nil {
			t.Fatalf("Remove(%d) of %d: %v", c.i, n, err)
		}
		// Forming H·diag(d)·H, and the decomposition SetEigen takes as given, are
		// accurate to a few n·ε·‖A‖ of their own: c = 8 as for the other formed matrices.
		checkRemoved(t, "fuzz", &s, without(c.a, c.i), r, 8)
	})
}
