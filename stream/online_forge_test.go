package stream

import (
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/wire"
	"github.com/ikpca/ikpca/internal/wiretest"
	"github.com/ikpca/ikpca/kernel"
)

// onlineModel is a KRQA or a KHA, as the tests of the online methods drive them: fed,
// then iterated by Pass.
type onlineModel interface {
	persistent
	Pass() error
}

// TestOnlineForgery: a KRQA's or KHA's stored sums must be those of its samples. Models
// after 30 passes over 40 samples (their running sums K·1, 1ᵀK1, K·α, 1ᵀα and 1ᵀKα
// updated at every presentation) decode; single-byte forgeries of every float of the
// samples, row sums, total and, for a KRQA, the products K·α and the sums 1ᵀα and 1ᵀKα,
// framed with a valid checksum, are refused with ErrEncoding or give a model whose
// values and scores are the original's within 1e-6 of their scale: what the decoder
// lets through is within 1e-9 of the sums' terms (samples.verify). The coefficients α
// and a KRQA's estimates Q are the iteration's state, of which any (Q non-negative) is
// one it may be in, and are not forged here. Before, a changed sample or row sum passed
// whenever it stayed within the Cauchy–Schwarz bound of the kernel's diagonal, 1e-4
// loose.
func TestOnlineForgery(t *testing.T) {
	X := toy(60, 3)
	Y := mat.DenseCopyOf(X.Slice(50, 60, 0, 2))
	for _, c := range []struct {
		name  string
		model func() (onlineModel, onlineModel, error)
		r     int
		krqa  bool
	}{
		{"KRQA, RBF", func() (onlineModel, onlineModel, error) {
			m, err := NewKRQA(kernel.RBF{Sigma: 0.7}, 2, KRQAOptions{Components: 3, Seed: 4})
			return m, new(KRQA), err
		}, 3, true},
		{"KRQA, polynomial, uncentred", func() (onlineModel, onlineModel, error) {
			m, err := NewKRQA(kernel.Polynomial{Degree: 2, Gamma: 1}, 2, KRQAOptions{Components: 2, Seed: 5, Uncentred: true})
			return m, new(KRQA), err
		}, 2, true},
		{"KHA, RBF", func() (onlineModel, onlineModel, error) {
			m, err := NewKHA(kernel.RBF{Gamma: 1}, 2, KHAOptions{Components: 2, Rate: 0.05, Seed: 4})
			return m, new(KHA), err
		}, 2, false},
	} {
		m, zero, err := c.model()
		if err != nil {
			t.Fatal(err)
		}
		if err := m.AddBatch(X.Slice(0, 40, 0, 2)); err != nil {
			t.Fatal(err)
		}
		for range 30 {
			if err := m.Pass(); err != nil {
				t.Fatal(err)
			}
		}
		b := wiretest.Marshal(t, m)
		if err := zero.UnmarshalBinary(b); err != nil {
			t.Fatalf("%s: a legitimate model refused: %v", c.name, err)
		}
		const n, d = 40, 2
		// The floats from the samples on: n·d samples, n row sums, the total; then
		// per component α (n) and, KRQA, K·α (n); then KRQA's 1ᵀα, 1ᵀKα, Q (r each).
		floats := n*d + n + 1 + c.r*n
		if c.krqa {
			floats += c.r*n + 3*c.r
		}
		start := len(b) - wire.Overhead + wire.PrefixSize - 8*floats
		var offsets []int // the floats forged: all but α and Q
		for f := range floats {
			at := f - (n*d + n + 1) // within the components' part
			switch {
			case at < 0:
			case c.krqa && at < 2*n*c.r && (at/n)%2 == 0, !c.krqa: // α
				continue
			case c.krqa && at >= 2*n*c.r+2*c.r: // Q
				continue
			}
			offsets = append(offsets, start+8*f)
		}
		decode := func(in []byte) (onlineModel, error) {
			_, got, _ := c.model()
			return got, got.UnmarshalBinary(in)
		}
		refused, accepted := wiretest.Forge(t, b, offsets, ErrEncoding, decode, func(got onlineModel, at int, mask byte) {
			if dv, ds := wiretest.Moved(t, got, m, Y, c.r); !(dv <= 1e-6 && ds <= 1e-6) {
				t.Errorf("%s: byte %d ^ %#x accepted: values move by %.3g, scores by %.3g", c.name, at, mask, dv, ds)
			}
		})
		t.Logf("%-30s %d forgeries: %d refused, %d accepted", c.name, refused+accepted, refused, accepted)
	}
}
