package secular

import (
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/ikpca/ikpca/internal/vec"
)

// decodeProblem turns fuzz bytes into a problem: a header byte (size and kind), then
// float64 values for d, z and ρ or c. It returns false when there are too few bytes.
func decodeProblem(data []byte) (problem, bool) {
	if len(data) < 1 {
		return problem{}, false
	}
	n := int(data[0]%12) + 1
	arrow := data[0]&0x80 != 0
	data = data[1:]
	need := 8 * (2*n + 1)
	if len(data) < need {
		return problem{}, false
	}
	next := func() float64 {
		v := math.Float64frombits(binary.LittleEndian.Uint64(data))
		data = data[8:]
		return v
	}
	p := problem{name: "fuzz", arrow: arrow, d: make([]float64, n), z: make([]float64, n)}
	for i := range n {
		p.d[i] = next()
	}
	for i := range n {
		p.z[i] = next()
	}
	if arrow {
		p.c = next()
	} else {
		p.rho = next()
	}
	// Sort finite poles (NaN and Inf stay to test the error path).
	if !slices.ContainsFunc(p.d, math.IsNaN) {
		slices.Sort(p.d)
	}
	return p, true
}

func encodeProblem(arrow bool, d, z []float64, last float64) []byte {
	h := byte(len(d) - 1)
	if arrow {
		h |= 0x80
	}
	out := []byte{h}
	for _, v := range append(append(slices.Clone(d), z...), last) {
		out = binary.LittleEndian.AppendUint64(out, math.Float64bits(v))
	}
	return out
}

// FuzzSolver checks the solver on arbitrary inputs: non-finite inputs must be rejected
// with ErrNonFinite, every other input solved (no panic, no non-convergence) with the
// invariants of a symmetric eigendecomposition.
func FuzzSolver(f *testing.F) {
	f.Add(encodeProblem(false, []float64{1, 2, 3}, []float64{1, 1, 1}, 1))
	f.Add(encodeProblem(true, []float64{1, 2, 3}, []float64{1, 1, 1}, 0))
	f.Add(encodeProblem(false, []float64{0, 1e-300, 1}, []float64{1e-200, 1, 1e100}, -1e-100))
	f.Add(encodeProblem(true, []float64{-1e300, 0, 1e300}, []float64{1e-300, 1e150, 1}, 1e-10))
	f.Add(encodeProblem(false, []float64{1, 1 + 0x1p-52, 1 + 0x1p-51}, []float64{1e-8, 1, 1e-8}, 1e-16))
	f.Add(encodeProblem(false, []float64{0, 0, 0, 0}, []float64{1, -1, 1, -1}, 2))
	f.Add(encodeProblem(true, []float64{2, 2}, []float64{0, 0}, 2))
	var s Solver
	f.Fuzz(func(t *testing.T, data []byte) {
		p, ok := decodeProblem(data)
		if !ok {
			return
		}
		nonFinite := slices.ContainsFunc(append(slices.Clone(p.d), p.z...), func(v float64) bool {
			return math.IsNaN(v) || math.IsInf(v, 0)
		}) || math.IsNaN(p.rho) || math.IsInf(p.rho, 0) || math.IsNaN(p.c) || math.IsInf(p.c, 0)
		res, err := p.solve(&s)
		if nonFinite {
			if !errors.Is(err, ErrNonFinite) {
				t.Fatalf("%v: non-finite input gave %v", p, err)
			}
			return
		}
		// A bound on the norm of the matrix, hence on every eigenvalue.
		bound := vec.MaxAbs(p.d) + math.Abs(p.c) + vec.Norm(p.z)
		if !p.arrow {
			bound = vec.MaxAbs(p.d) + math.Abs(p.rho)*vec.Norm(p.z)*vec.Norm(p.z)
		}
		if err != nil {
			// Only a problem whose eigenvalues may overflow float64 may be refused.
			if errors.Is(err, ErrNonFinite) && math.IsInf(bound, 0) {
				return
			}
			t.Fatalf("%v: %v", p, err)
		}
		if math.IsInf(bound, 0) {
			return // solved, but too close to overflow to form residuals
		}
		checkResult(t, p, res)
	})
}

// decodeRestriction turns fuzz bytes into a restriction: a header byte (size), then
// float64 values for d and z. It returns false when there are too few bytes.
func decodeRestriction(data []byte) (restriction, bool) {
	if len(data) < 1 {
		return restriction{}, false
	}
	n := int(data[0]%12) + 1
	data = data[1:]
	if len(data) < 8*2*n {
		return restriction{}, false
	}
	p := restriction{name: "fuzz", d: make([]float64, n), z: make([]float64, n)}
	for i := range 2 * n {
		v := math.Float64frombits(binary.LittleEndian.Uint64(data[8*i:]))
		if i < n {
			p.d[i] = v
		} else {
			p.z[i-n] = v
		}
	}
	if !slices.ContainsFunc(p.d, math.IsNaN) {
		slices.Sort(p.d)
	}
	return p, true
}

// FuzzRestrict checks Solver.Restrict on arbitrary inputs: non-finite inputs must be
// rejected with ErrNonFinite and z = 0 with ErrArgument; every other input must be
// solved (no panic, no non-convergence) with the invariants of the restricted
// eigenproblem (checkRestrictResult).
func FuzzRestrict(f *testing.F) {
	for _, p := range []restriction{
		{d: []float64{1, 2, 3}, z: []float64{1, 1, 1}},
		{d: []float64{1, 2, 2, 3}, z: []float64{1, 1, 1, 1}},
		{d: []float64{0, 1e-300, 1}, z: []float64{1e-200, 1, 1e100}},
		{d: []float64{-1e300, 0, 1e300}, z: []float64{1e-300, 1e150, 1}},
		{d: []float64{1, 1 + 0x1p-52, 1 + 0x1p-51}, z: []float64{1e-8, 1, 1e-8}},
		{d: []float64{0, 0, 0, 0}, z: []float64{1, -1, 1, -1}},
		{d: []float64{-1, 2, 5}, z: []float64{0, 3, 0}},
		{d: []float64{7}, z: []float64{-2}},
	} {
		f.Add(encodeProblem(false, p.d, p.z, 0)[:1+16*len(p.d)])
	}
	var s Solver
	f.Fuzz(func(t *testing.T, data []byte) {
		p, ok := decodeRestriction(data)
		if !ok {
			return
		}
		nonFinite := slices.ContainsFunc(append(slices.Clone(p.d), p.z...), func(v float64) bool {
			return math.IsNaN(v) || math.IsInf(v, 0)
		})
		res, err := s.Restrict(p.d, p.z)
		switch {
		case nonFinite:
			if !errors.Is(err, ErrNonFinite) {
				t.Fatalf("%v: non-finite input gave %v", p, err)
			}
			return
		case vec.MaxAbs(p.z) == 0:
			if !errors.Is(err, ErrArgument) {
				t.Fatalf("%v: z = 0 gave %v", p, err)
			}
			return
		case err != nil:
			t.Fatalf("%v: %v", p, err)
		}
		checkRestrictResult(t, p, res)
	})
}
