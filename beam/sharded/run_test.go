package sharded

import (
	"context"
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/testmat"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/kpca"
)

// points returns m points of dimension d in a few clusters (a spectrum with gaps) and
// their identities.
func points(m, d int, seed uint64) (*mat.Dense, []uint64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	X := mat.NewDense(m, d, nil)
	ids := make([]uint64, m)
	for i := range m {
		c := float64(i % 4)
		for j := range d {
			X.Set(i, j, c*float64(j%2)+rng.NormFloat64()*(1+0.3*float64(j)))
		}
		ids[i] = rng.Uint64()
	}
	return X, ids
}

// split deals the points into shards by identity, each shard in identity order, and
// returns the shards and the points in shard order (the rows of a one-process fit).
func split(X *mat.Dense, ids []uint64, S int) ([]Shard, *mat.Dense, []uint64) {
	m, d := X.Dims()
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool {
		sa, sb := ids[order[a]]%uint64(S), ids[order[b]]%uint64(S)
		if sa != sb {
			return sa < sb
		}
		return ids[order[a]] < ids[order[b]]
	})
	shards := make([]Shard, S)
	all := mat.NewDense(m, d, nil)
	allIDs := make([]uint64, m)
	for r, i := range order {
		s := int(ids[i] % uint64(S))
		shards[s].X.Rows++
		shards[s].X.Cols = d
		shards[s].X.Data = append(shards[s].X.Data, X.RawRowView(i)...)
		shards[s].IDs = append(shards[s].IDs, ids[i])
		all.SetRow(r, X.RawRowView(i))
		allIDs[r] = ids[i]
	}
	return shards, all, allIDs
}

// TestRunEqualsFitFrom checks a sharded run against kpca.FitFrom from the same start,
// in one process: the same Krylov space, orthonormalised by a tall-skinny QR over
// shards instead of the SVD of the whole block, so the Ritz values agree to rounding
// (1e-12·λ₁, a few hundred ε of the Krylov basis's conditioning), the certificates'
// intervals overlap and hold the batch eigenvalues, and the scores agree up to sign to
// the Davis–Kahan bound of the residual over the gap.
func TestRunEqualsFitFrom(t *testing.T) {
	const m, d, k, r = 300, 4, 4, 8
	X, ids := points(m, d, 1)
	kern := kernel.RBF{Sigma: 6}
	for _, centred := range []bool{true, false} {
		for _, S := range []int{1, 3, 7} {
			for _, passes := range []int{1, 3, 6} {
				shards, all, allIDs := split(X, ids, S)
				o := Options{Centred: centred, Components: k, Rank: r, Passes: passes, Seed: 11}
				res, err := Run(context.Background(), kern, shards, o)
				if err != nil {
					t.Fatal(err)
				}
				V := mat.NewDense(m, r, nil)
				for i := range m {
					StartRow(V.RawRowView(i), o.Seed, allIDs[i])
				}
				md, err := kpca.FitFrom(kern, all, kpca.Start{Vectors: V, Passes: passes}, kpca.Options{Components: k, Rank: r, Uncentred: !centred})
				if err != nil {
					t.Fatal(err)
				}
				want := md.Values(nil)
				wlo, whi := md.ValueBounds(nil, nil)
				got, lo, hi, _, _, _ := res.Global.Bounds()
				for j := range k {
					if math.Abs(got[j]-want[j]) > 1e-12*want[0] {
						t.Errorf("centred %v, %d shards, %d passes: value %d %.17g, one process %.17g", centred, S, passes, j, got[j], want[j])
					}
					if lo[j] > whi[j] || wlo[j] > hi[j] {
						t.Errorf("centred %v, %d shards, %d passes: value %d in [%g, %g], one process [%g, %g]", centred, S, passes, j, lo[j], hi[j], wlo[j], whi[j])
					}
				}
				// The batch eigenvalues lie in the intervals.
				K := kernel.Matrix(kern, all)
				if centred {
					K = kernel.Centre(K)
				}
				batch, _ := testmat.Eigen(t, K)
				for j := range k {
					if b := batch[j]; b < lo[j]-1e-12*batch[0] || b > hi[j]+1e-12*batch[0] {
						t.Errorf("centred %v, %d shards, %d passes: batch value %d %.17g outside [%.17g, %.17g]", centred, S, passes, j, b, lo[j], hi[j])
					}
				}
				t.Logf("centred %v, %d shards, %d passes: λ₁ %.6g, bounds %.3g, one process %.3g", centred, S, passes, got[0], hi[0]-lo[0], whi[0]-wlo[0])
				if passes < 6 {
					continue
				}
				// Converged: the scores equal the one-process model's up to sign.
				var U mat.Dense
				md.VectorsTo(&U)
				row := 0
				for s := range shards {
					sc := res.Scores[s]
					for i := range sc.Rows {
						for j := range k {
							w := U.At(row, j) * math.Sqrt(want[j])
							if g := sc.Data[i*k+j]; math.Abs(math.Abs(g)-math.Abs(w)) > 1e-8*math.Sqrt(want[0]) {
								t.Fatalf("centred %v, %d shards: score (%d, %d) %g, one process %g", centred, S, row, j, g, w)
							}
						}
						row++
					}
				}
			}
		}
	}
}

// TestEncoding: states and parts decode to what was encoded, bit for bit, and every
// truncation of an encoding is an error.
func TestEncoding(t *testing.T) {
	st := State{Shard: 3, N: 2, Q: Matrix{Rows: 2, Cols: 1, Data: []float64{1, math.Inf(-1)}}, Z: newMatrix(2, 3),
		Y: Matrix{Rows: 2, Cols: 2, Data: []float64{math.NaN(), 0, -0.0, 5e-324}}}
	b, _ := st.MarshalBinary()
	var got State
	if err := got.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	b2, _ := got.MarshalBinary()
	if string(b) != string(b2) || got.Shard != 3 || got.Z.Rows != 2 || got.Z.Cols != 3 {
		t.Errorf("state %+v does not round-trip", got)
	}
	for n := range len(b) {
		if err := new(State).UnmarshalBinary(b[:n]); err == nil {
			t.Fatalf("a state's first %d of %d bytes decoded", n, len(b))
		}
	}
	p := Part{Shard: 1, Data: []float64{1, 2}}
	pb, _ := p.MarshalBinary()
	var q Part
	if err := q.UnmarshalBinary(pb); err != nil || q.Shard != 1 || len(q.Data) != 2 || q.Data[1] != 2 {
		t.Errorf("part %+v (%v)", q, err)
	}
	tp := TilePart{Tile: 4, Y: Matrix{Rows: 1, Cols: 2, Data: []float64{3, 4}}}
	tb, _ := tp.MarshalBinary()
	var tq TilePart
	if err := tq.UnmarshalBinary(tb); err != nil || tq.Tile != 4 || tq.Y.Data[1] != 4 {
		t.Errorf("tile part %+v (%v)", tq, err)
	}
	// A shape its numbers do not fill.
	bad := Matrix{Rows: 3, Cols: 3, Data: []float64{1}}
	w := writer{}
	w.int(0)
	w.int(0)
	w.matrix(bad)
	if err := new(State).UnmarshalBinary(w.b); err == nil {
		t.Error("a 3×3 matrix of one number decoded")
	}
}

// FuzzState: no bytes make the state's decoder panic.
func FuzzState(f *testing.F) {
	b, _ := State{Shard: 1, N: 1, Q: Matrix{Rows: 1, Cols: 1, Data: []float64{2}}}.MarshalBinary()
	f.Add(b)
	f.Fuzz(func(t *testing.T, b []byte) {
		var st State
		if err := st.UnmarshalBinary(b); err == nil {
			if _, err := st.MarshalBinary(); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// TestRunRefuses: bad arguments are errors, never panics: a nil context or kernel, no
// shards, too few points for the rank, shards of different dimensions, a matrix whose
// shape its numbers do not fill, a cancelled context.
func TestRunRefuses(t *testing.T) {
	X, ids := points(40, 3, 2)
	shards, _, _ := split(X, ids, 2)
	o := Options{Centred: true, Components: 2, Rank: 4, Passes: 2}
	k := kernel.RBF{Sigma: 1}
	bad := append([]Shard(nil), shards...)
	bad[1].X = Matrix{Rows: bad[1].X.Rows, Cols: 2, Data: bad[1].X.Data[:2*bad[1].X.Rows]}
	lying := append([]Shard(nil), shards...)
	lying[0].X = Matrix{Rows: lying[0].X.Rows + 5, Cols: 3, Data: lying[0].X.Data}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for name, run := range map[string]func() error{
		"nil context": func() error { _, err := Run(nil, k, shards, o); return err }, //nolint:staticcheck
		"nil kernel":  func() error { _, err := Run(context.Background(), nil, shards, o); return err },
		"no shards":   func() error { _, err := Run(context.Background(), k, nil, o); return err },
		"rank 40": func() error {
			_, err := Run(context.Background(), k, shards, Options{Components: 2, Rank: 40, Passes: 2})
			return err
		},
		"dimensions 3, 2": func() error { _, err := Run(context.Background(), k, bad, o); return err },
		"a lying shape":   func() error { _, err := Run(context.Background(), k, lying, o); return err },
		"cancelled":       func() error { _, err := Run(cancelled, k, shards, o); return err },
		"0 passes": func() error {
			_, err := Run(context.Background(), k, shards, Options{Components: 2, Rank: 4})
			return err
		},
	} {
		if err := run(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// TestRunFromModel starts a run from a model's scores of the points — a rank-6 model of
// the first 60 points lifted to all of them, as a merged Nyström model's would be — and
// checks it against kpca.FitFrom from the same vectors: the same values to rounding
// (1e-12·λ₁, as TestRunEqualsFitFrom), and, after 3 passes, at least a hundred times
// closer to the batch values than the random start's 3 passes (3e-10·λ₁ against 4e-6·λ₁
// here: the model's span already holds most of the top eigenvectors). A start that is not finite, or of a
// width outside Components…Rank, is refused.
func TestRunFromModel(t *testing.T) {
	const m, d, k, r, S, passes = 300, 4, 4, 8, 3, 3
	X, ids := points(m, d, 3)
	kern := kernel.RBF{Sigma: 6}
	shards, all, _ := split(X, ids, S)
	model, err := kpca.Fit(kern, all.Slice(0, 60, 0, d), kpca.Options{Components: 6, Rank: 6})
	if err != nil {
		t.Fatal(err)
	}
	var V mat.Dense
	if err := model.Transform(&V, all, 6); err != nil {
		t.Fatal(err)
	}
	row := 0
	for s := range shards {
		n := shards[s].X.Rows
		shards[s].Start = Matrix{Rows: n, Cols: 6, Data: append([]float64(nil), V.RawMatrix().Data[row*6:(row+n)*6]...)}
		row += n
	}
	o := Options{Centred: true, Components: k, Rank: r, Passes: passes}
	res, err := Run(context.Background(), kern, shards, o)
	if err != nil {
		t.Fatal(err)
	}
	md, err := kpca.FitFrom(kern, all, kpca.Start{Vectors: &V, Passes: passes}, kpca.Options{Components: k, Rank: r})
	if err != nil {
		t.Fatal(err)
	}
	want := md.Values(nil)
	got := res.Global.Values
	batch, _ := testmat.Eigen(t, kernel.Centre(kernel.Matrix(kern, all)))
	random, err := Run(context.Background(), kern, func() []Shard {
		plain := append([]Shard(nil), shards...)
		for s := range plain {
			plain[s].Start = Matrix{}
		}
		return plain
	}(), o)
	if err != nil {
		t.Fatal(err)
	}
	var fromModel, fromRandom float64
	for j := range k {
		if math.Abs(got[j]-want[j]) > 1e-12*want[0] {
			t.Errorf("value %d %.17g, one process %.17g", j, got[j], want[j])
		}
		fromModel = math.Max(fromModel, math.Abs(got[j]-batch[j])/batch[0])
		fromRandom = math.Max(fromRandom, math.Abs(random.Global.Values[j]-batch[j])/batch[0])
	}
	t.Logf("%d passes: max |θ − λ|/λ₁ %.3g from the model, %.3g from random vectors", passes, fromModel, fromRandom)
	if fromModel > 1e-2*fromRandom {
		t.Errorf("%d passes from the model: max |θ − λ|/λ₁ %.3g (random start %.3g)", passes, fromModel, fromRandom)
	}

	bad := func(edit func(*Matrix)) []Shard {
		out := append([]Shard(nil), shards...)
		st := out[1].Start
		st.Data = append([]float64(nil), st.Data...)
		edit(&st)
		out[1].Start = st
		return out
	}
	for name, sh := range map[string][]Shard{
		"NaN":         bad(func(st *Matrix) { st.Data[5] = math.NaN() }),
		"3 columns":   bad(func(st *Matrix) { st.Cols, st.Data = 3, st.Data[:st.Rows*3] }),
		"9 columns":   bad(func(st *Matrix) { st.Cols, st.Data = 9, append(st.Data, make([]float64, st.Rows*3)...) }),
		"a row short": bad(func(st *Matrix) { st.Rows, st.Data = st.Rows-1, st.Data[:(st.Rows-1)*st.Cols] }),
		"lying":       bad(func(st *Matrix) { st.Rows++ }),
	} {
		if _, err := Run(context.Background(), kern, sh, o); err == nil {
			t.Errorf("a start with %s: no error", name)
		}
	}
}
