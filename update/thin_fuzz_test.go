package update

import (
	"errors"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/native"
)

// decodeThin turns fuzz bytes into a Thin and a sequence of updates. Byte 0 gives the
// order n (2 … 8) and, in its top bit, centring; byte 1 the rank (0: exact); bytes 2–4
// three updates (Border, Remove or RemoveKeepRank, and a row from −1 to n+1: out of
// range at both ends); every later byte is a number on the grid {−128, …, 127}/64, so
// that equal entries, equal eigenvalues, zero rows and duplicated points are common.
// The matrix is A = S·Sᵀ for S from the first n² numbers (positive semi-definite, as a
// kernel matrix, with exact zero eigenvalues whenever S is singular); the updates take
// their borders from the numbers that follow.
type thinCase struct {
	n, rank int
	centred bool
	ops     [3]byte
	nums    []float64
}

func decodeThin(data []byte) (thinCase, bool) {
	if len(data) < 5 {
		return thinCase{}, false
	}
	c := thinCase{n: int(data[0]%7) + 2, centred: data[0]&0x80 != 0}
	c.rank = int(data[1]) % c.n
	copy(c.ops[:], data[2:5])
	for _, b := range data[5:] {
		c.nums = append(c.nums, float64(int8(b))/64)
	}
	if len(c.nums) < c.n*c.n {
		return thinCase{}, false
	}
	return c, true
}

// start returns the Thin of the case: all eigenpairs of A (centred: of C·A·C, in a
// Helmert basis, so that the vectors are orthogonal to 1), or the top rank of them.
func (c thinCase) start(t *testing.T) (*Thin, bool) {
	n := c.n
	s := mat.NewDense(n, n, c.nums[:n*n])
	a := mat.NewSymDense(n, nil)
	a.SymOuterK(1, s)
	if c.centred {
		a = kernel.Centre(a)
	}
	var vecs mat.Dense
	vals, err := native.EigenSym(nil, &vecs, a)
	if err != nil {
		t.Fatal(err)
	}
	k := n
	var v *mat.Dense
	if c.centred {
		// The n−1 non-trivial pairs: those of Qᵀ·A·Q for the Helmert basis Q (n×(n−1)),
		// mapped back by Q.
		q := helmertBasis(n)
		var m, qm mat.Dense
		qm.Mul(q.T(), a)
		m.Mul(&qm, q)
		ms := mat.NewSymDense(n-1, nil)
		for i := range n - 1 {
			for j := i; j < n-1; j++ {
				ms.SetSym(i, j, (m.At(i, j)+m.At(j, i))/2)
			}
		}
		var w mat.Dense
		vals, err = native.EigenSym(nil, &w, ms)
		if err != nil {
			t.Fatal(err)
		}
		v = new(mat.Dense)
		v.Mul(q, &w)
		k = n - 1
	} else {
		v = &vecs
	}
	var th Thin
	if c.rank > 0 {
		k = min(c.rank, k)
		th.SetTruncation(Truncation{Rank: c.rank})
	}
	if err := th.SetEigen(vals[len(vals)-k:], mat.DenseCopyOf(v.Slice(0, n, v.RawMatrix().Cols-k, v.RawMatrix().Cols))); err != nil {
		t.Fatalf("Set: %v", err)
	}
	return &th, true
}

// startThin decodes a fuzz input (decodeThin) and starts its Thin (start), returning
// the numbers that follow the matrix's n² for the updates; false if the input makes no
// case.
func startThin(t *testing.T, data []byte) (c thinCase, th *Thin, nums []float64, ok bool) {
	if c, ok = decodeThin(data); !ok {
		return c, nil, nil, false
	}
	if th, ok = c.start(t); !ok {
		return c, nil, nil, false
	}
	return c, th, c.nums[c.n*c.n:], true
}

// FuzzThin runs up to three updates of a Thin — Border, Remove (exact) or
// RemoveKeepRank (at a rank), on small positive semi-definite matrices, centred or not —
// and checks each against its dense definition (borderChecked, thinRemoveChecked,
// removeKeepRankChecked: residual, orthogonality and eigenvalues against a batch
// decomposition), and an index out of range against ErrIndex with the state unchanged.
func FuzzThin(f *testing.F) {
	f.Add([]byte{0, 0, 0, 1, 2, 64, 0, 0, 64})
	f.Add([]byte{0x80 | 3, 2, 0, 5, 4, 64, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22})
	f.Add([]byte{5, 3, 0, 2, 8, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1})
	f.Add([]byte{0x80 | 1, 0, 1, 4, 0, 64, 0, 0, 0, 64, 0, 0, 0, 0, 3, 3, 3, 3, 3, 3, 3})
	f.Fuzz(func(t *testing.T, data []byte) {
		c, th, nums, ok := startThin(t, data)
		if !ok {
			return
		}
		take := func(k int) ([]float64, bool) {
			if len(nums) < k {
				return nil, false
			}
			out := nums[:k]
			nums = nums[k:]
			return out, true
		}
		for _, op := range c.ops {
			n, k := th.Dims()
			tol := 64 * float64(max(n, k)+7) * eps
			j := int(op/3)%(n+3) - 1
			switch op % 3 {
			case 0:
				x, ok := take(n + 1)
				if !ok {
					return
				}
				b, cc := x[:n], x[n]
				var e []float64
				f := 1.0
				if c.centred {
					if n == 0 {
						th.Grow()
						continue
					}
					e, f = helmertDir(n)
				}
				borderChecked(t, "fuzz", th, b, e, f, cc, tol, c.centred)
			default:
				if j < 0 || j >= n {
					was := snapT(th)
					err := th.Remove(j)
					if err2 := th.RemoveKeepRank(j, c.centred); !errors.Is(err, ErrIndex) || !errors.Is(err2, ErrIndex) {
						t.Fatalf("row %d of %d: %v, %v", j, n, err, err2)
					}
					if !snapT(th).equal(was) {
						t.Fatal("state changed")
					}
					continue
				}
				if c.rank > 0 || op%3 == 2 {
					removeKeepRankChecked(t, "fuzz", th, j, tol, c.centred)
				} else {
					thinRemoveChecked(t, "fuzz", th, j, tol, c.centred)
				}
			}
		}
	})
}
