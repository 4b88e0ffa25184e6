package ikpcabeam

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/features"
	"github.com/ikpca/ikpca/stream"
)

// SKPCA encoding, version 1 (integers uint64 and floats IEEE 754, little-endian):
//
//	magic    8 bytes  "IKPCASKB"
//	version  uint32   1
//	d, D, form, seed, ℓ, buffer    the dimension and stream.SKPCAOptions (Features = D,
//	sigma    float64                Form, Seed, Sketch = ℓ, Buffer; Sigma)
//	n        the number of points
//	frob2    float64, ‖Z‖_F²
//	shrink   float64, the certified bound Δ
//	k        the rows of the sketch, ≤ ℓ
//	rows     k·D float64, the sketch B = diag(σ)·Vᵀ, row-major
//	values   k float64, σ², descending
//	sha256   32 bytes over everything above
//
// The feature map is not stored: the seed draws it again. Floats are stored bit for
// bit, and the eigenvalues with the rows, so that a decoded model has the same Values
// and Transform, bit for bit, and continues as the encoded one would have.
const (
	skpcaMagic   = "IKPCASKB"
	skpcaVersion = 1
	// skpcaHeader is the length of everything before the rows.
	skpcaHeader = 8 + 4 + 8*11
	// skpcaLimit bounds what an encoding may make the decoder allocate, in float64s:
	// the feature map (d·D) and the sketch's buffers (buffer·D each). The encoding's
	// length bounds only the rows; the seed describes the map, whatever its size.
	skpcaLimit = 1 << 26
)

// MarshalBinary returns the model's encoding (above). It reads the decomposition
// first, which may compress the sketch, as Values does.
func (s *SKPCA) MarshalBinary() ([]byte, error) {
	s.settle()
	k, D := len(s.vals), s.opts.Features
	var B mat.Dense
	if err := s.fd.Sketch(&B); err != nil {
		return nil, fmt.Errorf("ikpcabeam: %w", err)
	}
	buf := bytes.NewBuffer(make([]byte, 0, skpcaHeader+8*k*(D+1)+sha256.Size))
	put := func(v uint64) { buf.Write(binary.LittleEndian.AppendUint64(nil, v)) }
	putF := func(v float64) { put(math.Float64bits(v)) }
	buf.WriteString(skpcaMagic)
	buf.Write(binary.LittleEndian.AppendUint32(nil, skpcaVersion))
	o := s.opts
	for _, v := range []int{s.rff.InDim(), o.Features, int(o.Form)} {
		put(uint64(v))
	}
	put(o.Seed)
	put(uint64(o.Sketch))
	put(uint64(o.Buffer))
	putF(o.Sigma)
	put(uint64(s.Len()))
	putF(s.Frobenius2())
	putF(s.ErrorBound())
	put(uint64(k))
	for i := range k {
		for _, v := range B.RawRowView(i) {
			putF(v)
		}
	}
	for _, v := range s.vals {
		putF(v)
	}
	sum := sha256.Sum256(buf.Bytes())
	buf.Write(sum[:])
	return buf.Bytes(), nil
}

// UnmarshalBinary replaces s by the model b encodes. Bytes that are not an SKPCA
// encoding, of another version, truncated or corrupted (checksum) are an ErrModel, and
// so are checksummed bytes that describe a model that cannot exist: every size is
// checked before anything is allocated — against the length of b, and the feature map
// and sketch, which the seed and options describe, against a limit of 2²⁶ float64s —
// and the options must be valid, the numbers finite, the eigenvalues positive and
// descending and each the squared norm of its row. On error s is unchanged.
func (s *SKPCA) UnmarshalBinary(b []byte) error {
	t, err := decodeSKPCA(b, skpcaLimit)
	if err != nil {
		return err
	}
	*s = *t
	return nil
}

// decodeSKPCA decodes an SKPCA encoding whose map and sketch hold at most limit
// float64s each.
func decodeSKPCA(b []byte, limit int) (*SKPCA, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: SKPCA: %s", ErrModel, fmt.Sprintf(format, args...))
	}
	if len(b) < skpcaHeader+sha256.Size || string(b[:8]) != skpcaMagic {
		return nil, bad("not an SKPCA encoding")
	}
	if v := binary.LittleEndian.Uint32(b[8:12]); v != skpcaVersion {
		return nil, bad("version %d, this package reads %d", v, skpcaVersion)
	}
	body := b[:len(b)-sha256.Size]
	if sum := sha256.Sum256(body); !bytes.Equal(sum[:], b[len(body):]) {
		return nil, bad("checksum mismatch (truncated or corrupted)")
	}
	at := 12
	next := func() uint64 { v := binary.LittleEndian.Uint64(b[at:]); at += 8; return v }
	nextF := func() float64 { return math.Float64frombits(next()) }
	var sizes [6]uint64 // d, D, form, seed, ℓ, buffer
	for i := range sizes {
		sizes[i] = next()
	}
	sigma, n, frob2, shrink, k := nextF(), next(), nextF(), nextF(), next()
	d, D, form, ell, buffer := sizes[0], sizes[1], sizes[2], sizes[4], sizes[5]
	lim := uint64(limit)
	switch {
	case d == 0 || D == 0 || ell == 0 || d > lim || D > lim || ell > lim || buffer > lim || form > 1:
		return nil, bad("impossible sizes: d = %d, D = %d, form %d, ℓ = %d, buffer %d", d, D, form, ell, buffer)
	case d*D > lim || max(buffer, 2*ell)*D > lim:
		return nil, bad("a feature map of %d×%d or a sketch of %d×%d exceeds the limit of %d values", d, D, max(buffer, 2*ell), D, limit)
	case k > ell || k > D || k > n || n > math.MaxInt64/2:
		return nil, bad("%d rows for a sketch of ℓ = %d, D = %d and %d points", k, ell, D, n)
	case uint64(len(b)) != skpcaHeader+8*k*(D+1)+sha256.Size:
		return nil, bad("%d bytes, want %d for %d rows of dimension %d", len(b), skpcaHeader+8*k*(D+1)+sha256.Size, k, D)
	case !finiteNonNegative(frob2) || !finiteNonNegative(shrink):
		return nil, bad("‖Z‖_F² = %v, Δ = %v", frob2, shrink)
	}
	opts := stream.SKPCAOptions{Features: int(D), Sigma: sigma, Form: features.Form(form), Seed: sizes[3], Sketch: int(ell), Buffer: int(buffer)}
	s, err := NewSKPCA(int(d), opts)
	if err != nil {
		return nil, bad("%v", err)
	}
	B := mat.NewDense(max(int(k), 1), int(D), nil)
	for i := range int(k) {
		row := B.RawRowView(i)
		for j := range row {
			row[j] = nextF()
			if math.IsNaN(row[j]) || math.IsInf(row[j], 0) {
				return nil, bad("row %d, entry %d is %v", i, j, row[j])
			}
		}
	}
	vals := make([]float64, k)
	for i := range vals {
		vals[i] = nextF()
		norm2 := mat.Dot(B.RowView(i), B.RowView(i))
		// The rows are σᵢ·vᵢᵀ with unit vᵢ from an SVD: ‖row‖² = σᵢ² to about D·ε.
		switch {
		case !(vals[i] > 0) || math.IsInf(vals[i], 0):
			return nil, bad("eigenvalue %d is %v", i, vals[i])
		case i > 0 && vals[i] > vals[i-1]:
			return nil, bad("eigenvalues not descending at %d", i)
		case math.Abs(norm2-vals[i]) > 1e-8*vals[i]:
			return nil, bad("row %d has squared norm %v, its eigenvalue is %v", i, norm2, vals[i])
		}
	}
	if k > 0 {
		if err := s.fd.UpdateRows(B.Slice(0, int(k), 0, int(D))); err != nil {
			return nil, bad("%v", err)
		}
	}
	s.extraPoints = int(n) - s.fd.Count()
	s.extraFrob2 = frob2 - s.fd.Frobenius2()
	s.extraShrink = shrink
	// The decomposition as the encoded model read it: W's columns are the rows over σ,
	// computed as sketch.FD.VectorsTo computes them, then signed.
	s.vals = append(s.vals[:0], vals...)
	for i, v := range vals {
		inv := 1 / math.Sqrt(v)
		for j, x := range B.RawRowView(i) {
			s.w.Set(j, i, x*inv)
		}
	}
	if k > 0 {
		flipSigns(s.w.Slice(0, int(D), 0, int(k)).(*mat.Dense))
	}
	s.fresh = true
	return s, nil
}

// finiteNonNegative reports 0 ≤ v < ∞.
func finiteNonNegative(v float64) bool { return v >= 0 && !math.IsInf(v, 1) }
