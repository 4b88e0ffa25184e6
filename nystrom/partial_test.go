package nystrom

import (
	"bytes"
	"errors"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/wiretest"
	"github.com/ikpca/ikpca/kernel"
)

// shardSums returns the encoded Sums of the rows of X split at cuts, each part added
// to a model of its own made from proto by Empty.
func shardSums(t *testing.T, proto *Model, X *mat.Dense, cuts ...int) [][]byte {
	t.Helper()
	n, _ := X.Dims()
	bounds := append(append([]int{0}, cuts...), n)
	var out [][]byte
	var s Sums
	for i := range len(bounds) - 1 {
		part := proto.Empty()
		if err := part.AddBatch(rows(X, bounds[i], bounds[i+1])); err != nil {
			t.Fatal(err)
		}
		if err := part.SumsTo(&s); err != nil {
			t.Fatal(err)
		}
		b := wiretest.Marshal(t, &s)
		out = append(out, b)
	}
	return out
}

// TestSumsAsMerge: the encoded Sums of three shards, decoded, merged with each other
// and added to the prototype (a model without points), give bit for bit the model that
// merging the shards' models gives — the same compensated additions in the same order —
// for a centred and an uncentred map; and a model decoded from the prototype's encoding
// (a worker's copy) takes them too.
func TestSumsAsMerge(t *testing.T) {
	X := points(t, "magic", 600, 3)
	k := rbfMedian(t, X)
	for _, uncentred := range []bool{false, true} {
		proto, err := New(k, rows(X, 0, 40), Options{Uncentred: uncentred})
		if err != nil {
			t.Fatal(err)
		}
		want := merged(t, proto, X, func(m *Model, Y *mat.Dense) error { return m.AddBatch(Y) }, 150, 420)
		wantBytes := wiretest.Marshal(t, want)
		enc := shardSums(t, proto, X, 150, 420)
		var total Sums
		if err := total.UnmarshalBinary(enc[0]); err != nil {
			t.Fatal(err)
		}
		for _, b := range enc[1:] {
			var s Sums
			if err := s.UnmarshalBinary(b); err != nil {
				t.Fatal(err)
			}
			if err := total.Merge(&s); err != nil {
				t.Fatal(err)
			}
		}
		if total.Len() != 600 {
			t.Fatalf("merged sums over %d points, want 600", total.Len())
		}
		protoBytes := wiretest.Marshal(t, proto)
		var copyOf Model
		if err := copyOf.UnmarshalBinary(protoBytes); err != nil {
			t.Fatal(err)
		}
		for _, m := range []*Model{proto.Empty(), &copyOf} {
			if err := m.AddSums(&total); err != nil {
				t.Fatal(err)
			}
			got := wiretest.Marshal(t, m)
			if !bytes.Equal(got, wantBytes) {
				t.Errorf("uncentred %v: the prototype with the merged sums differs from the merged models", uncentred)
			}
		}
	}
}

// TestSumsRefused: sums of another map (other landmarks, kernel, tolerance, centring),
// nil, zero or overflowing sums, a zero Model, merging sums with themselves — each an
// error of its kind that leaves the model and the sums as they were.
func TestSumsRefused(t *testing.T) {
	X := points(t, "magic", 200, 5)
	k := rbfMedian(t, X)
	L := rows(X, 0, 20)
	proto, err := New(k, L, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var own Sums
	m := fit(t, k, L, rows(X, 20, 120), Options{})
	if err := m.SumsTo(&own); err != nil {
		t.Fatal(err)
	}
	others := map[string]*Model{}
	for name, o := range map[string]struct {
		k    kernel.Kernel
		L    *mat.Dense
		opts Options
	}{
		"landmarks":  {k, rows(X, 1, 21), Options{}},
		"kernel":     {kernel.RBF{Sigma: k.Sigma * 1.5}, L, Options{}},
		"tolerance":  {k, L, Options{Tolerance: 1e-9}},
		"uncentred":  {k, L, Options{Uncentred: true}},
		"polynomial": {kernel.Polynomial{Degree: 2, Gamma: 1, Coef0: 1}, L, Options{}},
	} {
		others[name] = fit(t, o.k, o.L, rows(X, 120, 200), o.opts)
	}
	target := proto.Empty()
	if err := target.AddBatch(rows(X, 120, 200)); err != nil {
		t.Fatal(err)
	}
	before, _ := target.MarshalBinary()
	unchanged := func(what string) {
		t.Helper()
		if after, _ := target.MarshalBinary(); !bytes.Equal(after, before) {
			t.Errorf("%s changed the model", what)
		}
	}
	for name, o := range others {
		var s Sums
		if err := o.SumsTo(&s); err != nil {
			t.Fatal(err)
		}
		if err := target.AddSums(&s); !errors.Is(err, ErrArgument) {
			t.Errorf("sums of a model of other %s: %v, want ErrArgument", name, err)
		}
		unchanged("sums of other " + name)
		if name == "landmarks" || name == "tolerance" {
			if err := own.Merge(&s); !errors.Is(err, ErrArgument) || own.Len() != 100 {
				t.Errorf("merging sums of other %s: %v, %d points", name, err, own.Len())
			}
		}
	}
	if err := target.AddSums(nil); !errors.Is(err, ErrArgument) {
		t.Errorf("nil sums: %v", err)
	}
	if err := target.AddSums(new(Sums)); !errors.Is(err, ErrArgument) {
		t.Errorf("zero sums: %v", err)
	}
	unchanged("nil and zero sums")
	if err := new(Model).AddSums(&own); !errors.Is(err, ErrArgument) {
		t.Errorf("a zero Model: %v", err)
	}
	if err := new(Model).SumsTo(&own); !errors.Is(err, ErrArgument) {
		t.Errorf("SumsTo of a zero Model: %v", err)
	}
	if err := m.SumsTo(nil); !errors.Is(err, ErrArgument) {
		t.Errorf("SumsTo(nil): %v", err)
	}
	if err := own.Merge(&own); !errors.Is(err, ErrArgument) {
		t.Errorf("merging sums with themselves: %v", err)
	}
	if err := new(Sums).Merge(&own); !errors.Is(err, ErrArgument) {
		t.Errorf("merging into zero sums: %v", err)
	}
	if _, err := new(Sums).MarshalBinary(); !errors.Is(err, ErrArgument) {
		t.Errorf("encoding zero sums: %v", err)
	}
	// Diagonal sums of ¾ of the bound each: together beyond it.
	var big, big2 Sums
	for _, s := range []*Sums{&big, &big2} {
		if err := m.SumsTo(s); err != nil {
			t.Fatal(err)
		}
		s.sq.hi[0] = 0.75 * sumLimit
	}
	if err := big.Merge(&big2); !errors.Is(err, ErrNonFinite) || big.Len() != 100 || big.sq.hi[0] != 0.75*sumLimit {
		t.Errorf("merging sums beyond the bound: %v, %d points", err, big.Len())
	}
	target.sq.hi[0] += 0.75 * sumLimit // as if its points had made it
	before, _ = target.MarshalBinary()
	if err := target.AddSums(&big); !errors.Is(err, ErrNonFinite) {
		t.Errorf("adding sums beyond the bound: %v, want ErrNonFinite", err)
	}
	unchanged("sums beyond the bound")
}

// TestSumsDecodeRefused: an encoding of Sums edited into sums no points give — a
// wrong size, too many points, sums without points, a negative sum of squares, a sum
// beyond Cauchy–Schwarz — or truncated, or of another kind, is an ErrEncoding that
// leaves the receiver as it was.
func TestSumsDecodeRefused(t *testing.T) {
	X := points(t, "magic", 100, 7)
	m := fit(t, rbfMedian(t, X), rows(X, 0, 10), X, Options{})
	var s Sums
	if err := m.SumsTo(&s); err != nil {
		t.Fatal(err)
	}
	good := wiretest.Marshal(t, &s)
	const body = 8 + 4 + 8 // the frame's prefix (internal/wire)
	sizes := body + 32
	sums := sizes + 16
	squares := sums + 16*s.p
	edits := map[string]func([]byte){
		"features":             wiretest.PutU64(sizes, uint64(s.p+1)),
		"no features":          wiretest.PutU64(sizes, 0),
		"points beyond 2⁵³":    wiretest.PutU64(sizes+8, 1<<53+1),
		"sums without points":  wiretest.PutU64(sizes+8, 0),
		"negative square":      wiretest.PutF64(squares, -1),
		"sum beyond its bound": wiretest.PutF64(sums, 1e6),
	}
	before, _ := s.MarshalBinary()
	for name, edit := range edits {
		b := bytes.Clone(wiretest.Unsealed(good))
		edit(b)
		if err := s.UnmarshalBinary(wiretest.Reseal(b)); !errors.Is(err, ErrEncoding) {
			t.Errorf("%s: %v, want ErrEncoding", name, err)
		}
	}
	for name, b := range map[string][]byte{
		"truncated":  good[:len(good)-9],
		"a model":    mustMarshal(t, m),
		"corrupted":  append(bytes.Clone(good[:len(good)/2]), append([]byte{good[len(good)/2] ^ 1}, good[len(good)/2+1:]...)...),
		"empty body": wiretest.Reseal(wiretest.Unsealed(good)[:body]),
	} {
		if err := s.UnmarshalBinary(b); !errors.Is(err, ErrEncoding) {
			t.Errorf("%s: %v, want ErrEncoding", name, err)
		}
	}
	if after, _ := s.MarshalBinary(); !bytes.Equal(after, before) {
		t.Error("a refused encoding changed the sums")
	}
}

func mustMarshal(t *testing.T, m *Model) []byte {
	t.Helper()
	b := wiretest.Marshal(t, m)
	return b
}

// TestSumsTo: SumsTo reuses sums of the size and allocates nothing then; the digest is
// the map's, kept by Empty, Reset and an encoding, and another for another map.
func TestSumsTo(t *testing.T) {
	X := points(t, "magic", 100, 9)
	k := rbfMedian(t, X)
	m := fit(t, k, rows(X, 0, 10), X, Options{})
	var s Sums
	if err := m.SumsTo(&s); err != nil {
		t.Fatal(err)
	}
	if allocs := testing.AllocsPerRun(10, func() { _ = m.SumsTo(&s) }); allocs != 0 {
		t.Errorf("SumsTo into sums of the size: %v allocations", allocs)
	}
	var decoded Model
	if err := decoded.UnmarshalBinary(mustMarshal(t, m)); err != nil {
		t.Fatal(err)
	}
	e := m.Empty()
	m.Reset()
	for name, o := range map[string]*Model{"Empty": e, "Reset": m, "decoded": &decoded} {
		if o.digest != s.digest {
			t.Errorf("%s changed the map's digest", name)
		}
	}
	other := fit(t, kernel.RBF{Sigma: k.Sigma * 2}, rows(X, 0, 10), X, Options{})
	if other.digest == s.digest {
		t.Error("two maps with one digest")
	}
}

// FuzzUnmarshalSums: no input makes Sums.UnmarshalBinary panic; a refused input is an
// ErrEncoding that leaves the receiver as it was, and an accepted one encodes back to
// the same bytes and merges with a copy of itself. Inputs are tried as they are and
// sealed (wiretest.Reseal).
func FuzzUnmarshalSums(f *testing.F) {
	X := mat.NewDense(8, 2, []float64{0, 0, 1, 0, 0, 1, 1, 1, 0.5, 0.25, 2, -1, -1, 0.5, 0.3, 0.3})
	for i, k := range []kernel.Kernel{kernel.RBF{Sigma: 1}, kernel.Polynomial{Degree: 2, Gamma: 1, Coef0: 1}, kernel.Linear{}} {
		m, err := Fit(k, X, Options{Landmarks: 2 + i, Uncentred: i == 1})
		if err != nil {
			f.Fatal(err)
		}
		for _, mm := range []*Model{m, m.Empty()} {
			var s Sums
			if err := mm.SumsTo(&s); err != nil {
				f.Fatal(err)
			}
			b := wiretest.Marshal(f, &s)
			f.Add(wiretest.Unsealed(b))
		}
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, data := range [][]byte{in, wiretest.Reseal(in)} {
			var s Sums
			if err := s.UnmarshalBinary(data); err != nil {
				if !errors.Is(err, ErrEncoding) || s.p != 0 || s.n != 0 {
					t.Fatalf("refused with %v, receiver %d features, %d points", err, s.p, s.n)
				}
				continue
			}
			out, err := s.MarshalBinary()
			if err != nil || !bytes.Equal(out, data) {
				t.Fatalf("accepted input encodes to other bytes (%v)", err)
			}
			var c Sums
			if err := c.UnmarshalBinary(out); err != nil {
				t.Fatal(err)
			}
			if err := s.Merge(&c); err != nil && !errors.Is(err, ErrNonFinite) && !errors.Is(err, ErrArgument) {
				t.Fatalf("merge: %v", err)
			}
		}
	})
}
