package kpca

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"testing"

	"github.com/ikpca/ikpca/internal/wire"
	"github.com/ikpca/ikpca/kernel"
)

// forge writes a checkpoint with the given header and floats and a valid checksum, as a
// buggy or hostile writer could.
func forge(t testing.TB, h checkpointHeader, floats []float64) []byte {
	t.Helper()
	header, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	b.WriteString(checkpointMagic)
	binary.Write(&b, binary.LittleEndian, uint32(checkpointVersion))
	binary.Write(&b, binary.LittleEndian, uint32(len(header)))
	b.Write(header)
	for _, v := range floats {
		binary.Write(&b, binary.LittleEndian, math.Float64bits(v))
	}
	return seal(b.Bytes())
}

// TestCheckpointVersion2Kernel: a version 2 checkpoint names the polynomial's γ and c
// Scale and Offset, as kernel.Spec did then; Load reads them as Gamma and Coef0, and
// the model is the one saved, which saves again as version 3. In a version 3 file the
// old names mean nothing: the polynomial without γ is refused.
func TestCheckpointVersion2Kernel(t *testing.T) {
	x := points(t, "yeast", 12)
	k := kernel.Polynomial{Degree: 3, Gamma: 0.125, Coef0: 0.75}
	md := newModel(t, k, x, Options{})
	h, floats := dissect(t, checkpoint(t, md))
	header, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	// The header of a version 2 writer: the kernel as {Name, Sigma, Degree, Scale, Offset}.
	var fields map[string]any
	if err := json.Unmarshal(header, &fields); err != nil {
		t.Fatal(err)
	}
	fields["kernel"] = map[string]any{"Name": "polynomial", "Sigma": 0, "Degree": 3, "Scale": 0.125, "Offset": 0.75}
	old, err := json.Marshal(fields)
	if err != nil {
		t.Fatal(err)
	}
	file := func(version uint32) []byte {
		var b bytes.Buffer
		b.WriteString(checkpointMagic)
		binary.Write(&b, binary.LittleEndian, version)
		binary.Write(&b, binary.LittleEndian, uint32(len(old)))
		b.Write(old)
		for _, v := range floats {
			binary.Write(&b, binary.LittleEndian, math.Float64bits(v))
		}
		return seal(b.Bytes())
	}
	back, err := loadNoPanic(t, "version 2", file(2))
	if err != nil {
		t.Fatalf("version 2 polynomial checkpoint: %v", err)
	}
	if back.Kernel() != k || !capture(back).equal(capture(md)) {
		t.Errorf("version 2: kernel %v, want %v, or another state", back.Kernel(), k)
	}
	if again, err := Load(bytes.NewReader(checkpoint(t, back)), nil); err != nil || again.Kernel() != k {
		t.Errorf("saved again as version %d: %v, %v", checkpointVersion, again, err)
	}
	if _, err := loadNoPanic(t, "version 3 with the old names", file(3)); !errors.Is(err, ErrCheckpoint) {
		t.Errorf("version 3 with Scale and Offset: %v, want ErrCheckpoint", err)
	}
}

// seal appends the SHA-256 of body.
func seal(body []byte) []byte { return wire.Seal(bytes.Clone(body)) }

// dissect splits a valid checkpoint into its header and floats.
func dissect(t testing.TB, ckpt []byte) (checkpointHeader, []float64) {
	t.Helper()
	p := ckpt[len(checkpointMagic)+4:]
	hlen := int(binary.LittleEndian.Uint32(p))
	p = p[4:]
	var h checkpointHeader
	if err := json.Unmarshal(p[:hlen], &h); err != nil {
		t.Fatal(err)
	}
	p = p[hlen : len(p)-sha256.Size]
	floats := make([]float64, len(p)/8)
	for i := range floats {
		floats[i] = math.Float64frombits(binary.LittleEndian.Uint64(p[8*i:]))
	}
	return h, floats
}

// loadNoPanic loads b and turns a panic into a test failure.
func loadNoPanic(t *testing.T, what string, b []byte) (md *Model, err error) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("%s: Load panics: %v", what, r)
			err = errors.New("panic")
		}
	}()
	return Load(bytes.NewReader(b), nil)
}

// TestCheckpointOversized: a checksummed file whose header claims sizes far beyond its
// data — 2³⁰ × 2³⁰, or products that overflow an int — is ErrCheckpoint, never a
// makeslice panic or an overflowing byte count.
func TestCheckpointOversized(t *testing.T) {
	x := points(t, "yeast", 12)
	md := newModel(t, rbfMedian(t, x), x, Options{})
	saved := checkpoint(t, md)
	h, floats := dissect(t, saved)
	// The forged file is accepted unchanged: forge and dissect are faithful.
	if back, err := loadNoPanic(t, "faithful", forge(t, h, floats)); err != nil || back.Len() != 12 {
		t.Fatalf("the re-forged valid checkpoint: %v", err)
	}
	const g = 1 << 30
	for _, s := range []struct{ m, d, n int }{
		{g, g, g - 1},
		{g, g, 0},
		{1 << 62, 4, 3},
		{3, 1 << 61, 2},
		{1 << 32, 1 << 32, 1 << 32},
		{math.MaxInt, 1, math.MaxInt - 1},
		{12, 8, 1 << 31},
		{12, 8, -1},
		{-12, 8, 11},
		{12, 0, 11},
		{12, 8, 13},
	} {
		bad := h
		bad.Points, bad.Dim, bad.Order = s.m, s.d, s.n
		if _, err := loadNoPanic(t, "oversized", forge(t, bad, floats)); !errors.Is(err, ErrCheckpoint) {
			t.Errorf("sizes %d × %d, order %d: %v, want ErrCheckpoint", s.m, s.d, s.n, err)
		}
	}
	// Sizes whose byte count 8·(m·d + n + n² + m + 1) wraps around to the 8 bytes of
	// one float: 2³⁰·(2³¹ − 1) + 2³⁰ + 1 = 2⁶¹ + 1 ≡ 1 (mod 2⁶¹).
	wrap := h
	wrap.Points, wrap.Dim, wrap.Order = g, 1<<31-1, 0
	if _, err := loadNoPanic(t, "wrap-around", forge(t, wrap, floats[:1])); !errors.Is(err, ErrCheckpoint) {
		t.Errorf("byte count that wraps around: %v, want ErrCheckpoint", err)
	}
	// A header length beyond the file.
	body := append([]byte(nil), saved[:len(saved)-sha256.Size]...)
	binary.LittleEndian.PutUint32(body[len(checkpointMagic)+4:], math.MaxUint32)
	if _, err := loadNoPanic(t, "header length", seal(body)); !errors.Is(err, ErrCheckpoint) {
		t.Errorf("header length 2³²−1: %v", err)
	}
}

// TestCheckpointImpossible: NaN or infinite numbers, and parameters or options no model
// can have, are ErrCheckpoint even under a valid checksum.
func TestCheckpointImpossible(t *testing.T) {
	x := points(t, "yeast", 12)
	md := newModel(t, rbfMedian(t, x), x, Options{})
	h, floats := dissect(t, checkpoint(t, md))
	m, d, n := h.Points, h.Dim, h.Order
	// Offsets of the sections in floats.
	tail := m*d + n + m*n + m
	sections := map[string]int{"points": 0, "eigenvalues": m * d, "eigenvectors": m*d + n, "row sums": m*d + n + m*n,
		"total": tail, "trace": tail + 1, "certificate": tail + 2, "certificate end": tail + 7}
	for what, at := range sections {
		for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
			bad := append([]float64(nil), floats...)
			bad[at] = v
			if _, err := loadNoPanic(t, what, forge(t, h, bad)); !errors.Is(err, ErrCheckpoint) {
				t.Errorf("%s[0] = %v: %v, want ErrCheckpoint", what, v, err)
			}
		}
	}
	headers := map[string]func(*checkpointHeader){
		"σ negative":         func(h *checkpointHeader) { h.Kernel.Sigma = -1 },
		"σ zero":             func(h *checkpointHeader) { h.Kernel.Sigma = 0 },
		"laplacian σ zero":   func(h *checkpointHeader) { h.Kernel = kernel.Spec{Name: "laplacian"} },
		"degree zero":        func(h *checkpointHeader) { h.Kernel = kernel.Spec{Name: "polynomial", Degree: 0, Gamma: 1, Coef0: 1} },
		"γ negative":         func(h *checkpointHeader) { h.Kernel = kernel.Spec{Name: "polynomial", Degree: 2, Gamma: -1, Coef0: 1} },
		"γ zero":             func(h *checkpointHeader) { h.Kernel = kernel.Spec{Name: "polynomial", Degree: 2, Coef0: 1} },
		"σ and γ":            func(h *checkpointHeader) { h.Kernel.Gamma = 0.5 },
		"mode":               func(h *checkpointHeader) { h.Mode = "sideways" },
		"method":             func(h *checkpointHeader) { h.Method = "" },
		"order for the mode": func(h *checkpointHeader) { h.Mode = Uncentred.String() },
		"workers":            func(h *checkpointHeader) { h.Workers = -1 },
		"serial":             func(h *checkpointHeader) { h.Serial = -3 },
		"max iterations":     func(h *checkpointHeader) { h.MaxIterations = -1 },
		"refresh tolerance":  func(h *checkpointHeader) { h.RefreshTolerance = -1e-9 },
		"check every":        func(h *checkpointHeader) { h.CheckEvery = -1 },
		"refreshes":          func(h *checkpointHeader) { h.Refreshes = -1 },
		"points since probe": func(h *checkpointHeader) { h.Since = -1 },
		"rank negative":      func(h *checkpointHeader) { h.Rank = -1 },
		"rank below order":   func(h *checkpointHeader) { h.Rank = 5 },
		"window of one":      func(h *checkpointHeader) { h.Window = 1 },
		"window negative":    func(h *checkpointHeader) { h.Window = -2 },
		"window too small":   func(h *checkpointHeader) { h.Window = 11 },
		"rank-one window":    func(h *checkpointHeader) { h.Method = RankOne.String(); h.Window = 20 },
	}
	for what, change := range headers {
		bad := h
		change(&bad)
		if _, err := loadNoPanic(t, what, forge(t, bad, floats)); !errors.Is(err, ErrCheckpoint) {
			t.Errorf("%s: %v, want ErrCheckpoint", what, err)
		}
	}
	// Eigenvectors that are not orthonormal, or (centred) not orthogonal to 1: the first
	// vector rotated towards 1/√m within its plane with the second keeps the pair
	// orthonormal, so that only the centring check can see it.
	bad := append([]float64(nil), floats...)
	bad[sections["eigenvectors"]] += 0.5
	if _, err := loadNoPanic(t, "vectors", forge(t, h, bad)); !errors.Is(err, ErrCheckpoint) {
		t.Errorf("non-orthonormal vectors: %v, want ErrCheckpoint", err)
	}
	bad = append([]float64(nil), floats...)
	at := sections["eigenvectors"]
	for i := range m {
		bad[at+i*n] = 1 / math.Sqrt(float64(m)) // column 0 := 1/√m: unit, orthogonal to the others (they are ⟂ 1)
	}
	if _, err := loadNoPanic(t, "centring", forge(t, h, bad)); !errors.Is(err, ErrCheckpoint) {
		t.Errorf("a centred vector along 1: %v, want ErrCheckpoint", err)
	}
	// A certificate with a negative entry, in a rank-r checkpoint.
	rk := newModel(t, rbfMedian(t, x), x, Options{Rank: 4})
	hr, fr := dissect(t, checkpoint(t, rk))
	if _, err := loadNoPanic(t, "rank", forge(t, hr, fr)); err != nil {
		t.Fatalf("the re-forged rank-r checkpoint: %v", err)
	}
	fr[len(fr)-3] = -1
	if _, err := loadNoPanic(t, "certificate", forge(t, hr, fr)); !errors.Is(err, ErrCheckpoint) {
		t.Errorf("a negative certificate entry: %v, want ErrCheckpoint", err)
	}
}

// TestCheckpointNil: Save(nil) and Load(nil) are ErrArgument errors; a typed-nil custom
// kernel counts as none.
func TestCheckpointNil(t *testing.T) {
	x := points(t, "yeast", 12)
	md := newModel(t, rbfMedian(t, x), x, Options{})
	if err := md.Save(nil); !errors.Is(err, ErrArgument) {
		t.Errorf("Save(nil) = %v", err)
	}
	if err := md.Save((*bytes.Buffer)(nil)); !errors.Is(err, ErrArgument) {
		t.Errorf("Save((*bytes.Buffer)(nil)) = %v", err)
	}
	if _, err := Load(nil, nil); !errors.Is(err, ErrArgument) {
		t.Errorf("Load(nil) = %v", err)
	}
	if _, err := Load((*bytes.Reader)(nil), nil); !errors.Is(err, ErrArgument) {
		t.Errorf("Load((*bytes.Reader)(nil)) = %v", err)
	}
	if back, err := Load(bytes.NewReader(checkpoint(t, md)), (*kernel.RBF)(nil)); err != nil || back.Len() != 12 {
		t.Errorf("Load with a typed-nil custom kernel: %v", err)
	}
}
