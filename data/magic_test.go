package data

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestMagicShape(t *testing.T) {
	d := Magic()
	checkShape(t, d, "Magic()", 19020, 10, "magic", "fLength,fWidth,fSize,fConc,fConc1,fAsym,fM3Long,fM3Trans,fAlpha,fDist", true)
	r, _ := d.X.Dims()
	if n := strings.Count(magicRaw, "\n"); n != r || !strings.HasSuffix(magicRaw, "\n") {
		t.Errorf("file has %d newline-terminated lines, want %d", n, r)
	}
}

func TestMagicRows(t *testing.T) {
	checkRows(t, Magic(), nil, 1, []fileRow{
		// first line
		{1, []float64{28.7967, 16.0021, 2.6449, 0.3918, 0.1982, 27.7004, 22.011, -8.2027, 40.092, 81.8828}, "g", 0},
		// last row of the Hallgren & Northrop subset
		{10000, []float64{29.7423, 23.5505, 2.8814, 0.2957, 0.1636, 8.8321, -16.5257, -14.4703, 32.6827, 53.2158}, "g", 0},
		// last g row and first h row
		{12332, []float64{31.5125, 19.2867, 2.9578, 0.2975, 0.1515, 38.1833, 21.6729, -12.0726, 17.5809, 171.227}, "g", 0},
		{12333, []float64{93.7035, 37.9432, 3.1454, 0.168, 0.1011, 53.2566, 89.0566, 11.8175, 14.1224, 231.9028}, "h", 0},
		// last line
		{19020, []float64{187.1814, 53.0014, 3.2093, 0.2876, 0.1539, -167.3125, -168.4558, 31.4755, 52.731, 272.3174}, "h", 0},
	})
}

// TestMagicLabels checks the class counts and that the g rows come first,
// so that the first 10 000 rows (Hallgren & Northrop) are all of class g.
func TestMagicLabels(t *testing.T) {
	d := Magic()
	counts := map[string]int{}
	for i, l := range d.Labels {
		counts[l]++
		want := "g"
		if i >= 12332 {
			want = "h"
		}
		if l != want {
			t.Fatalf("row %d: label %q, want %q (g rows first)", i, l, want)
		}
	}
	if len(counts) != 2 || counts["g"] != 12332 || counts["h"] != 6688 {
		t.Errorf("class counts %v, want g:12332 h:6688", counts)
	}
}

func TestMagicValues(t *testing.T) {
	d := Magic()
	r, c := d.X.Dims()
	for i := range r {
		for j := range c {
			if v := d.X.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("X[%d,%d] = %v, want finite", i, j, v)
			}
		}
	}
	// fAlpha is an angle in degrees, in [0, 90] (README.md).
	alpha := mat.Col(nil, 8, d.X)
	for i, v := range alpha {
		if v < 0 || v > 90 {
			t.Fatalf("fAlpha[%d] = %v, want in [0, 90]", i, v)
		}
	}
}

// TestMagicDuplicates documents the duplicate rows mentioned in README.md:
// 115 pairs of identical lines, all of class h; the first 10 000 rows are
// pairwise distinct.
func TestMagicDuplicates(t *testing.T) {
	lines := strings.Split(strings.TrimSuffix(magicRaw, "\n"), "\n")
	seen := make(map[string]int, len(lines))
	dups := 0
	for i, l := range lines {
		if j, ok := seen[l]; ok {
			dups++
			if i < 10000 {
				t.Errorf("line %d duplicates line %d within the first 10 000 rows", i+1, j+1)
			}
			if !strings.HasSuffix(l, ",h") {
				t.Errorf("duplicate line %d is not of class h", i+1)
			}
			continue
		}
		seen[l] = i
	}
	if dups != 115 {
		t.Errorf("%d duplicate lines, want 115", dups)
	}
	d := Magic()
	if !mat.Equal(d.X.RowView(13051), d.X.RowView(15909)) {
		t.Error("lines 13052 and 15910 should be identical")
	}
}
