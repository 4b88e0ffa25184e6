package data

import (
	"math"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestCPUActShape(t *testing.T) {
	d := CPUAct()
	checkShape(t, d, "CPUAct()", 8192, 21, "cpu_act", "lread,lwrite,scall,sread,swrite,fork,exec,rchar,wchar,pgout,ppgout,"+
		"pgfree,pgscan,atch,pgin,ppgin,pflt,vflt,runqsz,freemem,freeswap", false)
	r, _ := d.X.Dims()
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
	checkRows(t, CPUAct(), CPUActTarget(), 2, []fileRow{
		// first data line
		{2, []float64{6, 2, 1036, 103, 114, 1.0, 1.0, 172076, 355965, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 4.0, 73.6, 89.0, 2.0, 6527, 1851864}, "", 90},
		// a line also present in the OpenML copy of cpu_act (README.md)
		{7246, []float64{1, 0, 1139, 85, 43, 0.2, 0.2, 25711, 5372, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 2.0, 15.6, 16.8, 1.8, 492, 1742376}, "", 92},
		// last line
		{8193, []float64{5, 0, 1888, 248, 215, 6.2, 1.8, 216420, 39346, 0.0, 0.0, 0.0, 0.0, 0.0, 7.4, 14.8, 296.6, 420.2, 4.6, 1628, 1757696}, "", 80},
	})
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
