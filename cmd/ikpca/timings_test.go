package main

import (
	"strconv"
	"strings"
	"testing"
)

// TestTimingsTrackParts: fit --timings of a tracked fit reports, under the track phase,
// the parts of its block steps' updates — project, solve, assemble — and the rest of the
// phase, each a time no longer than the phase and together equal to it; a batch fit,
// which tracks nothing, reports no parts.
func TestTimingsTrackParts(t *testing.T) {
	dir := t.TempDir()
	points := magicCSV(t, dir, 600)
	code, _, stderr := ikpca(t, "", "fit", "--batch-max", "200", "--rank", "20", "--k", "5", "--timings", "--values", "", points)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	track, parts := timingsOf(t, stderr, "track")
	if len(parts) != 4 {
		t.Fatalf("track's parts %v, want project, solve, assemble and other:\n%s", parts, stderr)
	}
	var sum float64
	for i, name := range []string{"project", "solve", "assemble", "other"} {
		v, ok := parts[name]
		if !ok || v < 0 || v > track+1e-3 {
			t.Errorf("part %d, %s: %v of a track of %v s", i, name, v, track)
		}
		sum += v
	}
	if d := sum - track; d < -3e-3 || d > 3e-3 { // five numbers, each rounded to 1 ms
		t.Errorf("the parts add up to %v s, the track took %v s", sum, track)
	}
	code, _, stderr = ikpca(t, "", "fit", "--rank", "20", "--k", "5", "--timings", "--values", "", points)
	if code != 0 {
		t.Fatalf("batch: exit %d: %s", code, stderr)
	}
	if strings.Contains(stderr, "  track") || strings.Contains(stderr, "    project") {
		t.Errorf("a batch fit reports tracking:\n%s", stderr)
	}
}

// timingsOf returns the wall seconds of the phase name in a --timings report, and of
// the parts listed under it.
func timingsOf(t *testing.T, report, name string) (float64, map[string]float64) {
	t.Helper()
	wall := -1.0
	parts := map[string]float64{}
	in := false
	for _, line := range strings.Split(report, "\n") {
		f := strings.Fields(line)
		switch {
		case strings.HasPrefix(line, "    ") && in && len(f) >= 2:
			v, err := strconv.ParseFloat(f[1], 64)
			if err != nil {
				t.Fatalf("%q: %v", line, err)
			}
			parts[f[0]] = v
		case strings.HasPrefix(line, "  ") && !strings.HasPrefix(line, "    ") && len(f) >= 2:
			in = f[0] == name
			if in {
				v, err := strconv.ParseFloat(f[1], 64)
				if err != nil {
					t.Fatalf("%q: %v", line, err)
				}
				wall = v
			}
		}
	}
	if wall < 0 {
		t.Fatalf("no phase %s in\n%s", name, report)
	}
	return wall, parts
}
