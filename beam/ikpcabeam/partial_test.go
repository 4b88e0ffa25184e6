package ikpcabeam

import (
	"bytes"
	"errors"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/internal/wiretest"
	"github.com/ikpca/ikpca/kernel"
)

// TestPartialMerge: a Nyström fit's folds emit partials (the sums of their bundles'
// points), smaller than the partial models; the merge's two levels — partials merged
// per group, then the groups with the prototype — give bit for bit the model that
// merging the bundles' models in the same order gives, and a partial travels through
// the accumulator's coder unchanged.
func TestPartialMerge(t *testing.T) {
	X := curve(90, 3, 5)
	b := prototype(t, X)
	fn := &foldFn{Block: 8}
	var enc [][]byte
	for i := range 3 {
		e, _ := foldOf(t, fn, b, X, 30*i, 30*i+30)
		if k, err := kindOf(e); err != nil || k.partial == nil {
			t.Fatalf("bundle %d: a fold emitted a %s (%v), want a partial", i, k.name, err)
		}
		model := wiretest.Marshal(t, fromPartial(t, b, e))
		if len(e) >= len(model) {
			t.Errorf("bundle %d: a partial of %d bytes, its model's %d", i, len(e), len(model))
		}
		enc = append(enc, e)
	}

	// The bundles' models merged in the order the merge below adds their partials.
	want, err := DecodeSummary(b)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range enc {
		if err := want.Merge(fromPartial(t, b, e)); err != nil {
			t.Fatal(err)
		}
	}
	wantBytes := wiretest.Marshal(t, want)

	group := &mergeFn{Base: -1}
	a := group.CreateAccumulator()
	for _, e := range enc[:2] {
		if a, err = group.AddInput(a, e); err != nil {
			t.Fatal(err)
		}
	}
	// Through the coder, as a runner moves an accumulator between workers.
	coded, err := encodeAccumulator(a)
	if err != nil {
		t.Fatal(err)
	}
	if a, err = decodeAccumulator(coded); err != nil || a.p == nil || a.s != nil {
		t.Fatalf("a partial through the coder: %+v, %v", a, err)
	}
	groupOut, err := group.ExtractOutput(a)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(groupOut, coded) {
		t.Error("a group's output differs from its accumulator's encoding")
	}

	last := &mergeFn{Base: 0}
	acc := last.CreateAccumulator()
	if acc, err = last.AddInput(acc, groupOut); err != nil {
		t.Fatal(err)
	}
	if _, err := last.ExtractOutput(acc); !errors.Is(err, ErrEmpty) {
		t.Errorf("a last level without its prototype: %v, want ErrEmpty", err)
	}
	if acc, err = last.AddInput(acc, b); err != nil { // the prototype after a partial
		t.Fatal(err)
	}
	third, err := last.AddInput(last.CreateAccumulator(), enc[2])
	if err != nil {
		t.Fatal(err)
	}
	if acc, err = last.MergeAccumulators(acc, third); err != nil {
		t.Fatal(err)
	}
	got, err := last.ExtractOutput(acc)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, wantBytes) {
		t.Error("the prototype and the merged partials differ from the merged partial models")
	}
}

// TestPartialRefused: a partial of another prototype, into a model of another kind, or
// that does not decode is an error, and leaves the accumulator's model as it was.
func TestPartialRefused(t *testing.T) {
	X := curve(60, 3, 6)
	b := prototype(t, X)
	e, _ := foldOf(t, &foldFn{Block: 8}, b, X, 10, 40)

	other, err := newNystromModel(mat.DenseCopyOf(X.Slice(20, 30, 0, 3)), NystromOptions{Dim: 3, Kernel: kernel.Spec{Name: "rbf", Sigma: 1}})
	if err != nil {
		t.Fatal(err)
	}
	otherBytes := wiretest.Marshal(t, other)
	fn := &mergeFn{Base: 0}
	a, err := fn.AddInput(fn.CreateAccumulator(), otherBytes)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fn.AddInput(a, e); !errors.Is(err, ikpca.ErrArgument) {
		t.Errorf("a partial of another prototype: %v, want an ikpca.ErrArgument", err)
	}
	if after, _ := a.s.MarshalBinary(); !bytes.Equal(after, otherBytes) {
		t.Error("a refused partial changed the model")
	}

	m := filledSKPCA(t, X)
	p, err := decodeAccumulator(e)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := merge(&accumulator{s: m}, p); !errors.Is(err, ErrArgument) || m.Len() != 60 {
		t.Errorf("a Nyström partial into an SKPCA: %v, %d points", err, m.Len())
	}

	bad := bytes.Clone(e)
	bad[len(bad)-40] ^= 1 // the checksum no longer matches
	if _, err := fn.AddInput(fn.CreateAccumulator(), bad); !errors.Is(err, ErrModel) {
		t.Errorf("a corrupted partial: %v, want ErrModel", err)
	}
	if _, err := DecodeModel(e); !errors.Is(err, ErrModel) {
		t.Errorf("a partial as a model: %v, want ErrModel", err)
	}
}
