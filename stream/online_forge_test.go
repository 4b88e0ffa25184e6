package stream

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/wire"
	"github.com/ikpca/ikpca/internal/wiretest"
	"github.com/ikpca/ikpca/kernel"
)

// onlineModel is a KRQA or a KHA, as the forgery test drives them.
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
		b, err := m.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if err := zero.UnmarshalBinary(b); err != nil {
			t.Fatalf("%s: a legitimate model refused: %v", c.name, err)
		}
		values := m.Values(nil)
		var scores mat.Dense
		if err := m.Transform(&scores, Y, c.r); err != nil {
			t.Fatal(err)
		}
		ss := mat.Norm(&scores, math.Inf(1))
		body := wiretest.Body(b)
		const n, d = 40, 2
		// The floats from the samples on: n·d samples, n row sums, the total; then
		// per component α (n) and, KRQA, K·α (n); then KRQA's 1ᵀα, 1ᵀKα, Q (r each).
		floats := n*d + n + 1 + c.r*n
		if c.krqa {
			floats += c.r*n + 3*c.r
		}
		start := len(body) - 8*floats
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
		magic := map[bool]string{true: krqaMagic, false: khaMagic}[c.krqa]
		var refused, accepted int
		for _, off := range offsets {
			for bit := range 8 {
				for _, mask := range []byte{0x01, 0x10, 0xff} {
					forged := append([]byte(nil), body...)
					forged[off+bit] ^= mask
					_, got, _ := c.model()
					err := got.UnmarshalBinary(wire.Frame(magic, onlineVersion, forged))
					if errors.Is(err, ErrEncoding) {
						refused++
						continue
					} else if err != nil {
						t.Fatalf("%s: byte %d ^ %#x: %v", c.name, off+bit, mask, err)
					}
					accepted++
					var gs, diff mat.Dense
					if err := got.Transform(&gs, Y, c.r); err != nil {
						t.Fatal(err)
					}
					diff.Sub(&gs, &scores)
					dv, ds := relDiff(got.Values(nil), values), mat.Norm(&diff, math.Inf(1))/ss
					if !(dv <= 1e-6 && ds <= 1e-6) {
						t.Errorf("%s: byte %d ^ %#x accepted: values move by %.3g, scores by %.3g", c.name, off+bit, mask, dv, ds)
					}
				}
			}
		}
		t.Log(fmt.Sprintf("%-30s %d forgeries: %d refused, %d accepted", c.name, refused+accepted, refused, accepted))
	}
}

// relDiff returns max|a − b|/max|b|.
func relDiff(a, b []float64) float64 {
	var dev, big float64
	for i := range b {
		dev = math.Max(dev, math.Abs(a[i]-b[i]))
		big = math.Max(big, math.Abs(b[i]))
	}
	return dev / big
}
