package kpca

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"testing"

	"github.com/ikpca/ikpca/internal/wire"
	"github.com/ikpca/ikpca/kernel"
)

// forge writes an encoding with the given header and floats in a valid frame (checksum
// included), as a buggy or hostile writer could.
func forge(t testing.TB, h encodingHeader, floats []float64) []byte {
	t.Helper()
	header, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	return forgeRaw(header, floats)
}

// forgeRaw writes an encoding with the given header bytes and floats in a valid frame.
func forgeRaw(header []byte, floats []float64) []byte {
	body := binary.LittleEndian.AppendUint32(nil, uint32(len(header)))
	body = append(body, header...)
	return wire.Frame(encodingMagic, encodingVersion, wire.AppendFloats(body, floats...))
}

// dissect splits a valid encoding into its header and floats.
func dissect(t testing.TB, b []byte) (encodingHeader, []float64) {
	t.Helper()
	_, p, err := wire.OpenFrame(b, encodingMagic, ErrEncoding, encodingWhat, encodingVersion)
	if err != nil {
		t.Fatal(err)
	}
	hlen := int(binary.LittleEndian.Uint32(p))
	p = p[4:]
	var h encodingHeader
	if err := json.Unmarshal(p[:hlen], &h); err != nil {
		t.Fatal(err)
	}
	p = p[hlen:]
	floats := make([]float64, len(p)/8)
	for i := range floats {
		floats[i] = math.Float64frombits(binary.LittleEndian.Uint64(p[8*i:]))
	}
	return h, floats
}

// decodeNoPanic decodes b into a zero Model and turns a panic into a test failure.
func decodeNoPanic(t *testing.T, what string, b []byte) (md *Model, err error) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("%s: UnmarshalBinary panics: %v", what, r)
			err = errors.New("panic")
		}
	}()
	return decoded(b)
}

// TestEncodingOldVersions: Save's checkpoints of versions 1 to 3 are not read — neither
// in their own layout (no body length) nor framed as version 3 — and a version 4 header
// with fields of theirs (a "mode", the polynomial's γ and c as Scale and Offset) or with
// a field of the wrong type is refused, not taken for a model with zeros.
func TestEncodingOldVersions(t *testing.T) {
	x := points(t, "yeast", 12)
	k := kernel.Polynomial{Degree: 3, Gamma: 0.125, Coef0: 0.75}
	md := fitModel(t, k, x, Options{Components: All})
	h, floats := dissect(t, encode(t, md))
	header, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	// Save's layout: magic, version, header length, header, floats, checksum.
	for version := uint32(1); version <= 3; version++ {
		var b bytes.Buffer
		b.WriteString(encodingMagic)
		binary.Write(&b, binary.LittleEndian, version)
		binary.Write(&b, binary.LittleEndian, uint32(len(header)))
		b.Write(header)
		b.Write(wire.AppendFloats(nil, floats...))
		if _, err := decodeNoPanic(t, "old layout", wire.Seal(b.Bytes())); !errors.Is(err, ErrEncoding) {
			t.Errorf("version %d in Save's layout: %v, want ErrEncoding", version, err)
		}
		body := binary.LittleEndian.AppendUint32(nil, uint32(len(header)))
		body = wire.AppendFloats(append(body, header...), floats...)
		if _, err := decodeNoPanic(t, "old version", wire.Frame(encodingMagic, version, body)); !errors.Is(err, ErrEncoding) {
			t.Errorf("version %d framed: %v, want ErrEncoding", version, err)
		}
	}
	// The faithful re-forge decodes: forge and dissect are exact.
	if back, err := decodeNoPanic(t, "faithful", forgeRaw(header, floats)); err != nil || back.Kernel() != k {
		t.Fatalf("the re-forged valid encoding: %v", err)
	}
	var fields map[string]any
	if err := json.Unmarshal(header, &fields); err != nil {
		t.Fatal(err)
	}
	for what, change := range map[string]func(map[string]any){
		"version 3's kernel": func(f map[string]any) {
			f["kernel"] = map[string]any{"Name": "polynomial", "Degree": 3, "Scale": 0.125, "Offset": 0.75}
		},
		"a mode":                   func(f map[string]any) { f["mode"] = "centred" },
		"uncentred as a string":    func(f map[string]any) { f["uncentred"] = "no" },
		"components as a float":    func(f map[string]any) { f["components"] = 2.5 },
		"an array for the options": func(f map[string]any) { f["method"] = []int{1} },
	} {
		g := map[string]any{}
		for k, v := range fields {
			g[k] = v
		}
		change(g)
		bad, err := json.Marshal(g)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := decodeNoPanic(t, what, forgeRaw(bad, floats)); !errors.Is(err, ErrEncoding) {
			t.Errorf("%s: %v, want ErrEncoding", what, err)
		}
	}
	for what, bad := range map[string][]byte{
		"bytes after the header":  append(append([]byte(nil), header...), " {}"...),
		"a header that is cut":    header[:len(header)-1],
		"a header that is a list": []byte("[1, 2]"),
		"no header":               nil,
	} {
		if _, err := decodeNoPanic(t, what, forgeRaw(bad, floats)); !errors.Is(err, ErrEncoding) {
			t.Errorf("%s: %v, want ErrEncoding", what, err)
		}
	}
}

// TestEncodingOversized: a checksummed encoding whose header claims sizes far beyond its
// data — 2³⁰ × 2³⁰, products that overflow an int, a model without points of a dimension
// no point could have — is ErrEncoding, never a makeslice panic or an overflowing byte
// count.
func TestEncodingOversized(t *testing.T) {
	x := points(t, "yeast", 12)
	md := fitModel(t, rbfMedian(t, x), x, Options{Components: All})
	saved := encode(t, md)
	h, floats := dissect(t, saved)
	// The forged encoding is accepted unchanged: forge and dissect are faithful.
	if back, err := decodeNoPanic(t, "faithful", forge(t, h, floats)); err != nil || back.Len() != 12 {
		t.Fatalf("the re-forged valid encoding: %v", err)
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
		{12, -8, 11},
		{12, 8, 13},
		{0, 1 << 62, 0},
		{0, math.MaxInt, 0},
	} {
		bad := h
		bad.Points, bad.Dim, bad.Order = s.m, s.d, s.n
		if _, err := decodeNoPanic(t, "oversized", forge(t, bad, floats)); !errors.Is(err, ErrEncoding) {
			t.Errorf("sizes %d × %d, order %d: %v, want ErrEncoding", s.m, s.d, s.n, err)
		}
	}
	// Sizes whose byte count 8·(m·d + n + m·n + m + 8) wraps around to the 8 bytes of
	// one float: 2³⁰·(2³¹ − 1) + 2³⁰ + 8 ≡ … (mod 2⁶⁴) — refused by the bounds first.
	wrap := h
	wrap.Points, wrap.Dim, wrap.Order = g, 1<<31-1, 0
	if _, err := decodeNoPanic(t, "wrap-around", forge(t, wrap, floats[:1])); !errors.Is(err, ErrEncoding) {
		t.Errorf("byte count that wraps around: %v, want ErrEncoding", err)
	}
	// A header length beyond the body.
	_, body, err := wire.OpenFrame(saved, encodingMagic, ErrEncoding, encodingWhat, encodingVersion)
	if err != nil {
		t.Fatal(err)
	}
	body = append([]byte(nil), body...)
	binary.LittleEndian.PutUint32(body, math.MaxUint32)
	if _, err := decodeNoPanic(t, "header length", wire.Frame(encodingMagic, encodingVersion, body)); !errors.Is(err, ErrEncoding) {
		t.Errorf("header length 2³²−1: %v", err)
	}
	// A body too short to hold the header's length.
	if _, err := decodeNoPanic(t, "short body", wire.Frame(encodingMagic, encodingVersion, []byte{1, 0})); !errors.Is(err, ErrEncoding) {
		t.Errorf("a body of 2 bytes: %v", err)
	}
}

// TestEncodingImpossible: NaN or infinite numbers, and parameters or options no model
// can have, are ErrEncoding even under a valid checksum; a kernel that is neither built
// in nor registered is ErrArgument.
func TestEncodingImpossible(t *testing.T) {
	x := points(t, "yeast", 12)
	md := fitModel(t, rbfMedian(t, x), x, Options{Components: All})
	h, floats := dissect(t, encode(t, md))
	m, d, n := h.Points, h.Dim, h.Order
	// Offsets of the sections in floats.
	tail := m*d + n + m*n + m
	sections := map[string]int{"points": 0, "eigenvalues": m * d, "eigenvectors": m*d + n, "row sums": m*d + n + m*n,
		"total": tail, "trace": tail + 1, "certificate": tail + 2, "certificate end": tail + 7}
	for what, at := range sections {
		for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
			bad := append([]float64(nil), floats...)
			bad[at] = v
			if _, err := decodeNoPanic(t, what, forge(t, h, bad)); !errors.Is(err, ErrEncoding) {
				t.Errorf("%s[0] = %v: %v, want ErrEncoding", what, v, err)
			}
		}
	}
	headers := map[string]func(*encodingHeader){
		"σ negative":             func(h *encodingHeader) { h.Kernel.Sigma = -1 },
		"σ zero":                 func(h *encodingHeader) { h.Kernel.Sigma = 0 },
		"laplacian σ zero":       func(h *encodingHeader) { h.Kernel = kernel.Spec{Name: "laplacian"} },
		"degree zero":            func(h *encodingHeader) { h.Kernel = kernel.Spec{Name: "polynomial", Degree: 0, Gamma: 1, Coef0: 1} },
		"γ negative":             func(h *encodingHeader) { h.Kernel = kernel.Spec{Name: "polynomial", Degree: 2, Gamma: -1, Coef0: 1} },
		"γ zero":                 func(h *encodingHeader) { h.Kernel = kernel.Spec{Name: "polynomial", Degree: 2, Coef0: 1} },
		"σ and γ":                func(h *encodingHeader) { h.Kernel.Gamma = 0.5 },
		"method":                 func(h *encodingHeader) { h.Method = "" },
		"order for the centring": func(h *encodingHeader) { h.Uncentred = true },
		"components zero":        func(h *encodingHeader) { h.Components = 0 },
		"components below All":   func(h *encodingHeader) { h.Components = -2 },
		"rank with All":          func(h *encodingHeader) { h.Rank = 20 },
		"rank zero with k":       func(h *encodingHeader) { h.Components = 3 },
		"rank below components":  func(h *encodingHeader) { h.Components, h.Rank = 5, 3 },
		"rank below order":       func(h *encodingHeader) { h.Components, h.Rank = 3, 5 },
		"rank negative":          func(h *encodingHeader) { h.Components, h.Rank = 3, -1 },
		"workers":                func(h *encodingHeader) { h.Workers = -1 },
		"serial":                 func(h *encodingHeader) { h.Serial = -3 },
		"max iterations":         func(h *encodingHeader) { h.MaxIterations = -1 },
		"refresh tolerance":      func(h *encodingHeader) { h.RefreshTolerance = -1e-9 },
		"check every":            func(h *encodingHeader) { h.CheckEvery = -1 },
		"block":                  func(h *encodingHeader) { h.Block = -1 },
		"batch max":              func(h *encodingHeader) { h.BatchMax = -1 },
		"refreshes":              func(h *encodingHeader) { h.Refreshes = -1 },
		"points since probe":     func(h *encodingHeader) { h.Since = -1 },
		"window of one":          func(h *encodingHeader) { h.Window = 1 },
		"window negative":        func(h *encodingHeader) { h.Window = -2 },
		"window too small":       func(h *encodingHeader) { h.Window = 11 },
		"rank-one window":        func(h *encodingHeader) { h.Method = RankOne.String(); h.Window = 20 },
		"rank-one with k":        func(h *encodingHeader) { h.Method = RankOne.String(); h.Components, h.Rank = 3, 50 },
		"no kernel name":         func(h *encodingHeader) { h.Kernel.Name = "" },
	}
	for what, change := range headers {
		bad := h
		change(&bad)
		if _, err := decodeNoPanic(t, what, forge(t, bad, floats)); !errors.Is(err, ErrEncoding) {
			t.Errorf("%s: %v, want ErrEncoding", what, err)
		}
	}
	unknown := h
	unknown.Kernel = kernel.Spec{Name: "kpca-test-never-registered"}
	if _, err := decodeNoPanic(t, "unregistered", forge(t, unknown, floats)); !errors.Is(err, ErrArgument) {
		t.Errorf("an unregistered kernel: %v, want ErrArgument", err)
	}
	// Eigenvectors that are not orthonormal, or (centred) not orthogonal to 1: the first
	// vector rotated towards 1/√m within its plane with the second keeps the pair
	// orthonormal, so that only the centring check can see it.
	bad := append([]float64(nil), floats...)
	bad[sections["eigenvectors"]] += 0.5
	if _, err := decodeNoPanic(t, "vectors", forge(t, h, bad)); !errors.Is(err, ErrEncoding) {
		t.Errorf("non-orthonormal vectors: %v, want ErrEncoding", err)
	}
	bad = append([]float64(nil), floats...)
	at := sections["eigenvectors"]
	for i := range m {
		bad[at+i*n] = 1 / math.Sqrt(float64(m)) // column 0 := 1/√m: unit, orthogonal to the others (they are ⟂ 1)
	}
	if _, err := decodeNoPanic(t, "centring", forge(t, h, bad)); !errors.Is(err, ErrEncoding) {
		t.Errorf("a centred vector along 1: %v, want ErrEncoding", err)
	}
	// A certificate with a negative entry, in a rank-r encoding.
	rk := fitModel(t, rbfMedian(t, x), x, Options{Components: 4, Rank: 4})
	hr, fr := dissect(t, encode(t, rk))
	if _, err := decodeNoPanic(t, "rank", forge(t, hr, fr)); err != nil {
		t.Fatalf("the re-forged rank-r encoding: %v", err)
	}
	fr[len(fr)-3] = -1
	if _, err := decodeNoPanic(t, "certificate", forge(t, hr, fr)); !errors.Is(err, ErrEncoding) {
		t.Errorf("a negative certificate entry: %v, want ErrEncoding", err)
	}
}

// TestEncodingNil: nil and typed-nil writers and readers are ErrArgument errors, and so
// is the encoding of a zero Model.
func TestEncodingNil(t *testing.T) {
	x := points(t, "yeast", 12)
	md := fitModel(t, rbfMedian(t, x), x, Options{Components: All})
	if _, err := md.MarshalBinaryTo(nil); !errors.Is(err, ErrArgument) {
		t.Errorf("MarshalBinaryTo(nil) = %v", err)
	}
	if _, err := md.MarshalBinaryTo((*bytes.Buffer)(nil)); !errors.Is(err, ErrArgument) {
		t.Errorf("MarshalBinaryTo((*bytes.Buffer)(nil)) = %v", err)
	}
	if _, err := md.UnmarshalBinaryFrom(nil); !errors.Is(err, ErrArgument) {
		t.Errorf("UnmarshalBinaryFrom(nil) = %v", err)
	}
	if _, err := md.UnmarshalBinaryFrom((*bytes.Reader)(nil)); !errors.Is(err, ErrArgument) {
		t.Errorf("UnmarshalBinaryFrom((*bytes.Reader)(nil)) = %v", err)
	}
	var zero Model
	if _, err := zero.MarshalBinary(); !errors.Is(err, ErrArgument) {
		t.Errorf("MarshalBinary of a zero Model = %v", err)
	}
	if md.Len() != 12 {
		t.Error("a rejected call changed the model")
	}
}
