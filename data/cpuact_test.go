package data

import (
	"crypto/sha256"
	"encoding/hex"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// cpuActSHA256 is the checksum of cpu_act.csv listed in
// /work/shared/data/SHA256SUMS (and in README.md).
const cpuActSHA256 = "72a215c6fcad26f907605b1cb1f154836d19ac019d95da1375d9251d0467f501"

func TestCPUActRawChecksum(t *testing.T) {
	b := CPUActRaw()
	sum := sha256.Sum256(b)
	if got := hex.EncodeToString(sum[:]); got != cpuActSHA256 {
		t.Fatalf("sha256(CPUActRaw()) = %s, want %s", got, cpuActSHA256)
	}
	if len(b) != 805043 {
		t.Errorf("len(CPUActRaw()) = %d, want 805043", len(b))
	}
}

func TestCPUActRawIsCopy(t *testing.T) {
	b := CPUActRaw()
	b[0] = 'X'
	if CPUActRaw()[0] != '1' {
		t.Fatal("modifying CPUActRaw() result changed the embedded data")
	}
}

// TestCPUActParses guards the panics in CPUAct and CPUActTarget: the
// embedded file must parse.
func TestCPUActParses(t *testing.T) {
	if _, _, err := loadCPUAct(); err != nil {
		t.Fatalf("embedded cpu_act.csv does not parse: %v", err)
	}
}

func TestCPUActShape(t *testing.T) {
	d := CPUAct()
	r, c := d.X.Dims()
	if r != 8192 || c != 21 {
		t.Fatalf("CPUAct().X is %d×%d, want 8192×21", r, c)
	}
	if d.Name != "cpu_act" {
		t.Errorf("Name = %q, want cpu_act", d.Name)
	}
	want := "lread,lwrite,scall,sread,swrite,fork,exec,rchar,wchar,pgout,ppgout," +
		"pgfree,pgscan,atch,pgin,ppgin,pflt,vflt,runqsz,freemem,freeswap"
	if got := strings.Join(d.Features, ","); got != want {
		t.Errorf("Features = %s, want %s", got, want)
	}
	if d.Labels != nil {
		t.Errorf("Labels = %v…, want nil (regression data)", d.Labels[:min(3, len(d.Labels))])
	}
	if n := len(CPUActTarget()); n != r {
		t.Errorf("len(CPUActTarget()) = %d, want %d", n, r)
	}
	// Header plus one newline-terminated line per row.
	if n := strings.Count(cpuActRaw, "\n"); n != r+1 || !strings.HasSuffix(cpuActRaw, "\n") {
		t.Errorf("file has %d newline-terminated lines, want %d", n, r+1)
	}
	header := "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22\n"
	if !strings.HasPrefix(cpuActRaw, header) {
		t.Errorf("header line is not %q", header)
	}
}

func TestCPUActRows(t *testing.T) {
	d := CPUAct()
	y := CPUActTarget()
	cases := []struct {
		line   int // 1-based line of the file; line 1 is the header
		vals   []float64
		target float64
	}{
		// first data line
		{2, []float64{6, 2, 1036, 103, 114, 1.0, 1.0, 172076, 355965, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 4.0, 73.6, 89.0, 2.0, 6527, 1851864}, 90},
		// a line also present in the OpenML copy of cpu_act (README.md)
		{7246, []float64{1, 0, 1139, 85, 43, 0.2, 0.2, 25711, 5372, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 2.0, 15.6, 16.8, 1.8, 492, 1742376}, 92},
		// last line
		{8193, []float64{5, 0, 1888, 248, 215, 6.2, 1.8, 216420, 39346, 0.0, 0.0, 0.0, 0.0, 0.0, 7.4, 14.8, 296.6, 420.2, 4.6, 1628, 1757696}, 80},
	}
	for _, tc := range cases {
		i := tc.line - 2
		for j, v := range tc.vals {
			if got := d.X.At(i, j); got != v {
				t.Errorf("line %d, feature %s: got %v, want %v", tc.line, d.Features[j], got, v)
			}
		}
		if y[i] != tc.target {
			t.Errorf("line %d: target %v, want %v", tc.line, y[i], tc.target)
		}
	}
}

// TestCPUActValues checks the ranges documented in README.md: all features
// are finite and non-negative, and the target usr is an integer in [0, 99],
// zero in 283 rows, all of which have freeswap < 1000.
func TestCPUActValues(t *testing.T) {
	d := CPUAct()
	r, c := d.X.Dims()
	for i := range r {
		for j := range c {
			if v := d.X.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				t.Fatalf("X[%d,%d] = %v, want finite and ≥ 0", i, j, v)
			}
		}
	}
	zeros := 0
	freeswap := slices.Index(d.Features, "freeswap")
	for i, v := range CPUActTarget() {
		if v != math.Trunc(v) || v < 0 || v > 99 {
			t.Fatalf("target[%d] = %v, want an integer in [0, 99]", i, v)
		}
		if v == 0 {
			zeros++
			// The usr = 0 rows belong to the swap-exhausted regime.
			if fs := d.X.At(i, freeswap); fs >= 1000 {
				t.Errorf("row %d: usr = 0 but freeswap = %v, want < 1000", i, fs)
			}
		}
	}
	if zeros != 283 {
		t.Errorf("%d rows with usr = 0, want 283", zeros)
	}
	// Column maxima quoted in README.md and in the CPUAct doc comment.
	for _, tc := range []struct {
		name string
		max  float64
	}{{"fork", 20.12}, {"runqsz", 2823}, {"freeswap", 2243187}} {
		j := slices.Index(d.Features, tc.name)
		if got := mat.Max(d.X.ColView(j)); got != tc.max {
			t.Errorf("max(%s) = %v, want %v", tc.name, got, tc.max)
		}
	}
}

func TestCPUActFreshCopy(t *testing.T) {
	a := CPUAct()
	first := a.X.At(0, 0)
	a.X.Set(0, 0, -1)
	a.Features[0] = "changed"
	a.Name = "changed"
	y := CPUActTarget()
	y[0] = -1
	b := CPUAct()
	if b.X.At(0, 0) != first || b.Features[0] != "lread" || b.Name != "cpu_act" {
		t.Fatal("modifying a CPUAct() result changed the next call's result")
	}
	if a.X == b.X {
		t.Fatal("CPUAct() returned the same matrix twice")
	}
	if CPUActTarget()[0] != 90 {
		t.Fatal("modifying a CPUActTarget() result changed the next call's result")
	}
}

func TestCPUActConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			d := CPUAct()
			d.X.Set(1, 1, 42)
			y := CPUActTarget()
			y[1] = 42
			if r, _ := d.X.Dims(); r != 8192 || len(y) != 8192 {
				t.Errorf("rows = %d, targets = %d", r, len(y))
			}
		})
	}
	wg.Wait()
}

func TestParseTargetCSV(t *testing.T) {
	feats := []string{"a", "b"}
	d, y, err := parseTargetCSV("t", "1,2,3\n0.5,1e-1,7\n-1,2,8", feats, "y")
	if err != nil {
		t.Fatal(err)
	}
	want := mat.NewDense(2, 2, []float64{0.5, 0.1, -1, 2})
	if !mat.Equal(d.X, want) || len(y) != 2 || y[0] != 7 || y[1] != 8 || d.Labels != nil {
		t.Fatalf("got X=%v y=%v labels=%v", mat.Formatted(d.X), y, d.Labels)
	}

	bad := []struct {
		name, raw, line string // line: expected "line N" in the error, or ""
	}{
		{"empty", "", ""},
		{"header only", "1,2,3\n", ""},
		{"short header", "1,2\n1,2,3\n", "line 1"},
		{"empty header field", "1,,3\n1,2,3\n", "line 1"},
		{"too few fields", "1,2,3\n0.5,1\n", "line 2"},
		{"too many fields", "1,2,3\n0.5,1,2,3\n", "line 2"},
		{"blank line", "1,2,3\n1,2,3\n\n1,2,3\n", "line 3"},
		{"not a number", "1,2,3\n1,2,3\n0.5,abc,1\n", "line 3"},
		{"bad target", "1,2,3\n1,2,x\n", "line 2"},
		{"empty field", "1,2,3\n1,,3\n", "line 2"},
		{"space", "1,2,3\n0.5, 1,3\n", "line 2"},
		{"CRLF", "1,2,3\r\n1,2,3\r\n", "line 2"},
		{"NaN", "1,2,3\nNaN,1,2\n", "line 2"},
		{"Inf", "1,2,3\n1,-Inf,2\n", "line 2"},
		{"Inf target", "1,2,3\n1,2,+Inf\n", "line 2"},
		{"overflow", "1,2,3\n1,1e999,2\n", "line 2"},
	}
	for _, tc := range bad {
		_, _, err := parseTargetCSV("t", tc.raw, feats, "y")
		if err == nil {
			t.Errorf("%s: expected an error", tc.name)
			continue
		}
		if !strings.Contains(err.Error(), tc.line) {
			t.Errorf("%s: error %q does not name %q", tc.name, err, tc.line)
		}
	}
	if _, _, err := parseTargetCSV("t", "1\n2\n", nil, "y"); err == nil {
		t.Error("no feature columns: expected an error")
	}
}
