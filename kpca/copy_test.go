package kpca

import (
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestCopyFrom checks that a copy is the same model: equal state, the same next step
// bit for bit, and an original untouched by what is done to the copy. The destination
// starts as a model of other data, of another dimension and options.
func TestCopyFrom(t *testing.T) {
	x, k := sample(t, "magic", 61)
	y := points(t, "yeast", 30)
	for _, opts := range allOptions {
		src := newModel(t, k, x.Slice(0, 60, 0, 10), opts)
		other := Options{Mode: 1 - opts.Mode, Method: 1 - opts.Method}
		dst := newModel(t, rbfMedian(t, y), y, other)
		before := capture(src)
		dst.CopyFrom(src)
		if !capture(dst).equal(before) || dst.Dim() != 10 || dst.Options() != opts || dst.Kernel() != src.Kernel() {
			t.Fatalf("%s: copy differs from its source", name(opts))
		}
		next := x.RawRowView(60)
		if err := dst.Add(next); err != nil {
			t.Fatal(err)
		}
		if !capture(src).equal(before) {
			t.Fatalf("%s: adding to the copy changed the source", name(opts))
		}
		if err := src.Add(next); err != nil {
			t.Fatal(err)
		}
		if !capture(dst).equal(capture(src)) || dst.Stats().Deflated != src.Stats().Deflated {
			t.Errorf("%s: the copy's step differs from the source's", name(opts))
		}
		var u, v mat.Dense
		src.VectorsTo(&u)
		dst.VectorsTo(&v)
		if !mat.Equal(&u, &v) {
			t.Errorf("%s: eigenvectors differ after the same step", name(opts))
		}
		dst.CopyFrom(dst) // a no-op
		if !capture(dst).equal(capture(src)) {
			t.Errorf("%s: self-copy changed the model", name(opts))
		}
	}
}

// TestCopyFromNoGarbage checks that restoring a saved state into a model with enough
// room allocates nothing, and that Reserve gives that room up front.
func TestCopyFromNoGarbage(t *testing.T) {
	x, k := sample(t, "magic", 81)
	for _, opts := range allOptions {
		base := newModel(t, k, x.Slice(0, 80, 0, 10), opts)
		var work Model
		work.Reserve(0) // a zero Model: nothing to do
		work.CopyFrom(base)
		work.Reserve(81)
		if err := work.Add(x.RawRowView(80)); err != nil {
			t.Fatal(err)
		}
		if allocs := testing.AllocsPerRun(20, func() { work.CopyFrom(base) }); allocs != 0 {
			t.Errorf("%s: CopyFrom allocates %v times", name(opts), allocs)
		}
		if work.Len() != 80 || !slices.Equal(work.Values(nil), base.Values(nil)) {
			t.Errorf("%s: restored model differs", name(opts))
		}
	}
}
