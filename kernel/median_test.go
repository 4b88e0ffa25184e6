package kernel

import (
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/internal/vec"
)

// line returns the points v as rows of a one-column matrix.
func line(v ...float64) *mat.Dense { return mat.NewDense(len(v), 1, v) }

func TestMedianDistanceHand(t *testing.T) {
	cases := []struct {
		name  string
		X     *mat.Dense
		limit int
		want  float64
	}{
		// One pair.
		{"2 points", mat.NewDense(2, 2, []float64{0, 0, 3, 4}), 1000, 5},
		// 0, 1, 3: distances 1, 3, 2 — three pairs, median 2.
		{"odd pairs", line(0, 1, 3), 1000, 2},
		// 0, 1, 3, 7: distances 1, 3, 7, 2, 6, 4 — six pairs, (3+4)/2.
		{"even pairs", line(0, 1, 3, 7), 1000, 3.5},
		// 5 points in the plane, 10 pairs: distances
		// (0,0)-(3,4)=5, (0,0)-(6,8)=10, (0,0)-(0,1)=1, (0,0)-(3,0)=3,
		// (3,4)-(6,8)=5, (3,4)-(0,1)=√18, (3,4)-(3,0)=4,
		// (6,8)-(0,1)=√85, (6,8)-(3,0)=√73, (0,1)-(3,0)=√10;
		// sorted 1, 3, √10, 4, √18, 5, 5, √73, √85, 10: (√18+5)/2.
		{"plane", mat.NewDense(5, 2, []float64{0, 0, 3, 4, 6, 8, 0, 1, 3, 0}), 1000, (math.Sqrt(18) + 5) / 2},
		// The limit: only 0, 1, 3 are used.
		{"limit", line(0, 1, 3, 100, 200, 300), 3, 2},
		{"limit 2", line(0, 1, 3, 100, 200, 300), 2, 1},
		{"limit above rows", line(0, 1, 3), 4, 2},
		// Duplicates: 0, 0, 0, 5: distances 0, 0, 5, 0, 5, 5 → (0+5)/2.
		{"duplicates even", line(0, 0, 0, 5), 10, 2.5},
		// 2, 2, 2: all three distances are 0.
		{"all equal", line(2, 2, 2), 10, 0},
		// 1, 1, 1, 1, 4: six zero distances and four 3s → 0.
		{"mostly zero", line(1, 1, 1, 1, 4), 10, 0},
		// 0, 0, 4: distances 0, 4, 4 → 4.
		{"duplicates odd", line(0, 0, 4), 10, 4},
	}
	for _, c := range cases {
		got, err := MedianDistance(c.X, c.limit)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if math.Abs(got-c.want) > 1e-15*c.want {
			t.Errorf("%s: MedianDistance = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestMedianDistanceView uses a matrix view whose stride exceeds its width.
func TestMedianDistanceView(t *testing.T) {
	big := mat.NewDense(4, 3, []float64{
		9, 0, 9,
		9, 1, 9,
		9, 3, 9,
		9, 7, 9,
	})
	got, err := MedianDistance(big.Slice(0, 4, 1, 2).(*mat.Dense), 100)
	if err != nil || got != 3.5 {
		t.Errorf("MedianDistance(view) = %v, %v; want 3.5", got, err)
	}
}

// TestMedianDistanceRandom compares with a full sort on random data with
// and without many duplicate rows.
func TestMedianDistanceRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	for _, m := range []int{2, 3, 4, 5, 17, 64, 101} {
		for _, dupes := range []bool{false, true} {
			X := randDense(rng, m+10, 4)
			if dupes {
				for i := 1; i < m+10; i += 2 {
					X.SetRow(i, X.RawRowView(rng.IntN(i)))
				}
			}
			var dist []float64
			for i := range m {
				for j := i + 1; j < m; j++ {
					dist = append(dist, math.Sqrt(vec.SqDist(X.RawRowView(i), X.RawRowView(j))))
				}
			}
			slices.Sort(dist)
			p := len(dist)
			want := dist[p/2]
			if p%2 == 0 {
				want = (dist[p/2-1] + dist[p/2]) / 2
			}
			got, err := MedianDistance(X, m)
			if err != nil || math.Abs(got-want) > 1e-15*want {
				t.Errorf("m=%d dupes=%v: got %v, %v; want %v", m, dupes, got, err, want)
			}
		}
	}
}

// TestMedianDistanceThreads: the pairs computed on several goroutines, in chunks of
// rows, are those computed on one, each in its place: the median is the same bits on
// GOMAXPROCS 1 and 4, for sizes that end in a partial chunk, and is the middle of the
// sorted distances.
func TestMedianDistanceThreads(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	rng := rand.New(rand.NewPCG(17, 18))
	for _, m := range []int{medianChunk + 1, 5*medianChunk + 3, 700} {
		X := randDense(rng, m, 50)
		runtime.GOMAXPROCS(1)
		one, err := MedianDistance(X, m)
		if err != nil {
			t.Fatal(err)
		}
		runtime.GOMAXPROCS(4)
		four, err := MedianDistance(X, m)
		if err != nil || math.Float64bits(four) != math.Float64bits(one) {
			t.Errorf("m=%d: %v on 4 threads, %v on one (%v)", m, four, one, err)
		}
		var dist []float64
		for i := range m {
			for j := i + 1; j < m; j++ {
				dist = append(dist, math.Sqrt(vec.SqDist(X.RawRowView(i), X.RawRowView(j))))
			}
		}
		slices.Sort(dist)
		want := dist[len(dist)/2]
		if len(dist)%2 == 0 {
			want = (dist[len(dist)/2-1] + dist[len(dist)/2]) / 2
		}
		if one != want {
			t.Errorf("m=%d: %v, want the middle of the sorted distances %v", m, one, want)
		}
	}
}

func TestMedianDistanceErrors(t *testing.T) {
	cases := []struct {
		name  string
		X     *mat.Dense
		limit int
		msg   string
		kind  error
	}{
		{"nil X", nil, 10, "nil", ikpca.ErrArgument},
		{"empty X", &mat.Dense{}, 10, "empty", ikpca.ErrEmpty},
		{"one row", line(1), 10, "at least 2", ikpca.ErrEmpty},
		{"limit 1", line(1, 2, 3), 1, "limit", ikpca.ErrArgument},
		{"limit 0", line(1, 2, 3), 0, "limit", ikpca.ErrArgument},
		{"limit negative", line(1, 2, 3), -5, "limit", ikpca.ErrArgument},
		{"NaN", line(1, math.NaN(), 3), 10, "not finite", ikpca.ErrNonFinite},
		{"Inf", mat.NewDense(2, 2, []float64{1, 2, 3, math.Inf(-1)}), 10, "not finite", ikpca.ErrNonFinite},
		{"overflow", line(-1e300, 1e300, 0), 10, "overflow", ikpca.ErrArgument},
	}
	for _, c := range cases {
		got, err := MedianDistance(c.X, c.limit)
		if err == nil || !strings.Contains(err.Error(), c.msg) || !errors.Is(err, c.kind) {
			t.Errorf("%s: MedianDistance = %v, %v; want an error containing %q, wrapping %v", c.name, got, err, c.msg, c.kind)
		}
	}
	// A NaN beyond the rows used is not examined.
	if got, err := MedianDistance(line(0, 1, 3, math.NaN()), 3); err != nil || got != 2 {
		t.Errorf("NaN beyond the limit: got %v, %v; want 2", got, err)
	}
}

func TestSelectKth(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	gens := map[string]func(n int) []float64{
		"random": func(n int) []float64 {
			a := make([]float64, n)
			for i := range a {
				a[i] = rng.NormFloat64()
			}
			return a
		},
		"few values": func(n int) []float64 {
			a := make([]float64, n)
			for i := range a {
				a[i] = float64(rng.IntN(3))
			}
			return a
		},
		"constant": func(n int) []float64 { return make([]float64, n) },
		"sorted": func(n int) []float64 {
			a := make([]float64, n)
			for i := range a {
				a[i] = float64(i)
			}
			return a
		},
		"reversed": func(n int) []float64 {
			a := make([]float64, n)
			for i := range a {
				a[i] = float64(n - i)
			}
			return a
		},
	}
	for name, gen := range gens {
		for _, n := range []int{1, 2, 3, 10, 101, 1000} {
			for _, k := range []int{0, n / 2, n - 1, rng.IntN(n)} {
				a := gen(n)
				sorted := slices.Sorted(slices.Values(a))
				selectKth(a, k)
				if a[k] != sorted[k] {
					t.Fatalf("%s n=%d k=%d: a[k] = %v, want %v", name, n, k, a[k], sorted[k])
				}
				if slices.Max(a[:k+1]) != a[k] || slices.Min(a[k:]) != a[k] {
					t.Fatalf("%s n=%d k=%d: not partitioned around a[k]", name, n, k)
				}
				if !slices.Equal(slices.Sorted(slices.Values(a)), sorted) {
					t.Fatalf("%s n=%d k=%d: elements changed", name, n, k)
				}
			}
		}
	}
}
