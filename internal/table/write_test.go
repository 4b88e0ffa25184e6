package table

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"

	"gonum.org/v1/gonum/mat"
)

// randomValue returns a finite value from a mix of kinds: ordinary,
// tiny, huge, subnormal, signed zeros and random bit patterns.
func randomValue(rng *rand.Rand) float64 {
	switch rng.IntN(8) {
	case 0:
		return rng.NormFloat64()
	case 1:
		return rng.NormFloat64() * math.Pow(10, float64(rng.IntN(600)-300))
	case 2:
		return []float64{0, math.Copysign(0, -1)}[rng.IntN(2)]
	case 3:
		return math.SmallestNonzeroFloat64 * float64(rng.IntN(1000)+1) * []float64{1, -1}[rng.IntN(2)]
	case 4:
		return math.MaxFloat64 * (1 - rng.Float64()/2) * []float64{1, -1}[rng.IntN(2)]
	case 5:
		return float64(rng.IntN(2001) - 1000)
	}
	for {
		v := math.Float64frombits(rng.Uint64())
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			return v
		}
	}
}

// sameBits reports whether a and b hold bitwise identical values.
func sameBits(a, b mat.Matrix) bool {
	ar, ac := a.Dims()
	br, bc := b.Dims()
	if ar != br || ac != bc {
		return false
	}
	for i := 0; i < ar; i++ {
		for j := 0; j < ac; j++ {
			if math.Float64bits(a.At(i, j)) != math.Float64bits(b.At(i, j)) {
				return false
			}
		}
	}
	return true
}

func TestWriteReadRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 200; trial++ {
		r, c := rng.IntN(20)+1, rng.IntN(8)+1
		X := mat.NewDense(r, c, nil)
		for i := 0; i < r; i++ {
			for j := 0; j < c; j++ {
				X.Set(i, j, randomValue(rng))
			}
		}
		var names []string
		header := HeaderNo
		if trial%2 == 0 {
			header = HeaderYes
			names = make([]string, c)
			for j := range names {
				names[j] = []string{"x", "a b", "with,comma", `q"uote`, "new\nline", "", "1.5", "tab\there"}[rng.IntN(8)]
			}
			if c == 1 && names[0] == "" {
				names[0] = "y" // Read takes a lone "" for a blank line
			}
		}
		comma := []rune{0, ',', '\t', ';', 'e', '.', '-', 'é'}[trial%8]
		var buf bytes.Buffer
		if err := Write(&buf, names, X, comma); err != nil {
			t.Fatalf("Write: %v", err)
		}
		opts := Options{Name: "rt", Header: header, Comma: comma}
		if comma == 0 {
			opts.Comma = ','
		}
		if names == nil && (comma == ',' || comma == '\t') {
			opts.Comma = 0 // detect; names may hold tabs
		}
		tab, err := Read(bytes.NewReader(buf.Bytes()), opts)
		if err != nil {
			t.Fatalf("trial %d: Read: %v\n%s", trial, err, buf.Bytes())
		}
		if !sameBits(tab.X, X) {
			t.Fatalf("trial %d: round trip differs\nwrote %v\nread  %v\n%s", trial, rows(X), rows(tab.X), buf.Bytes())
		}
		if names != nil && !reflect.DeepEqual(tab.Names, names) {
			t.Errorf("trial %d: Names = %q, want %q", trial, tab.Names, names)
		}
	}
}

func TestWriteFormat(t *testing.T) {
	X := mat.NewDense(2, 3, []float64{1, -0.5, 1e-300, math.Copysign(0, -1), 1e21, 123456789})
	var buf bytes.Buffer
	if err := Write(&buf, []string{"a", "b c", "d,e"}, X, 0); err != nil {
		t.Fatal(err)
	}
	want := "a,b c,\"d,e\"\n1,-0.5,1e-300\n-0,1e+21,1.23456789e+08\n"
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}

	buf.Reset()
	if err := Write(&buf, nil, mat.NewDense(1, 2, []float64{1, 2}).T(), '\t'); err != nil {
		t.Fatal(err)
	}
	if want := "1\n2\n"; buf.String() != want {
		t.Errorf("got %q, want %q", buf.String(), want)
	}

	buf.Reset()
	if err := Write(&buf, []string{""}, mat.NewDense(1, 1, []float64{3}), 0); err != nil {
		t.Fatal(err)
	}
	if want := "\"\"\n3\n"; buf.String() != want {
		t.Errorf("got %q, want %q", buf.String(), want)
	}
}

func TestWriteErrors(t *testing.T) {
	X := mat.NewDense(2, 2, []float64{1, 2, 3, 4})
	var buf bytes.Buffer
	if err := Write(&buf, []string{"a"}, X, 0); err == nil {
		t.Error("wrong number of names: no error")
	}
	if err := Write(&buf, nil, X, '\n'); err == nil {
		t.Error("newline separator: no error")
	}
	if err := Write(&buf, nil, nil, 0); err == nil {
		t.Error("nil matrix: no error")
	}
	boom := errors.New("boom")
	w := &failWriter{err: boom}
	big := mat.NewDense(10000, 2, nil)
	if err := Write(w, []string{"a", "b"}, big, 0); !errors.Is(err, boom) {
		t.Errorf("failing writer: err = %v, want boom", err)
	}
	if err := Write(iotest.TruncateWriter(&buf, 0), nil, X, 0); err != nil {
		t.Errorf("TruncateWriter: %v", err)
	}
}

type failWriter struct{ err error }

func (w *failWriter) Write(p []byte) (int, error) { return 0, w.err }

func TestWriteNonFinite(t *testing.T) {
	X := mat.NewDense(1, 3, []float64{math.NaN(), math.Inf(1), math.Inf(-1)})
	var buf bytes.Buffer
	if err := Write(&buf, nil, X, 0); err != nil {
		t.Fatal(err)
	}
	if want := "NaN,+Inf,-Inf\n"; buf.String() != want {
		t.Errorf("got %q, want %q", buf.String(), want)
	}
	if _, err := Read(&buf, Options{Name: "w"}); err == nil || !strings.Contains(err.Error(), "not a finite number") {
		t.Errorf("Read: err = %v", err)
	}
}
