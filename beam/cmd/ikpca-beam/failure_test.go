package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ikpca/ikpca/beam/ikpcabeam"
	"github.com/ikpca/ikpca/beam/internal/beamtest"
)

// fitToy fits SKPCA to 50 toy points in dir and returns the options that did it.
func fitToy(t *testing.T, dir string) options {
	t.Helper()
	_, text := toyInput(50, ',')
	in := filepath.Join(dir, "train.csv")
	beamtest.WriteFile(t, in, []byte(text))
	o := options{mode: "fit", method: "skpca", input: in, format: "csv", sep: ",", model: filepath.Join(dir, "m.skpca"), features: 8, sketch: 2, sigma: 1, seed: 1, block: 256}
	if err := run(context.Background(), o, io.Discard); err != nil {
		t.Fatal(err)
	}
	return o
}

// TestProjectNothingProjected: a projection of an input of which no point is projected
// — every line a dead letter — fails (the command exits 1) with an error that says
// so, after writing the dead letters. Before, it succeeded with an empty output.
func TestProjectNothingProjected(t *testing.T) {
	dir := beamtest.TempDir(t)
	o := fitToy(t, dir)
	bad := filepath.Join(dir, "bad.csv")
	beamtest.WriteFile(t, bad, []byte("0.1,0.2,nan\n0.1,x,0.3\n0.5,0.5,inf\n"))
	o.mode, o.input, o.output = "project", bad, filepath.Join(dir, "scores")
	err := run(context.Background(), o, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "no point of "+bad+" was projected") {
		t.Fatalf("error %v, want one that says no point was projected", err)
	}
	if d := readDead(t, o.output+".dead"); len(d) != 3 {
		t.Errorf("%d dead letters, want 3: %q", len(d), d)
	}
}

// TestMaxDeadFraction: an input of which 3 records in 10 are dead letters fails a
// limit of 0.2 (with an error that gives the counts, the dead letters written first)
// and passes one of 0.5; an invalid limit is refused before the pipeline runs.
func TestMaxDeadFraction(t *testing.T) {
	dir := beamtest.TempDir(t)
	o := fitToy(t, dir)
	_, text := toyInput(7, ',')
	in := filepath.Join(dir, "mixed.csv")
	beamtest.WriteFile(t, in, []byte(text+"1,2,nan\nx,1,2\n1,2,3,4\n"))
	o.mode, o.input, o.limitDead = "project", in, true
	o.maxDead, o.output = 0.2, filepath.Join(dir, "strict")
	err := run(context.Background(), o, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "3 of the 10 records") || !strings.Contains(err.Error(), "--max-dead-fraction=0.2") {
		t.Errorf("a limit of 0.2: error %v, want 3 of 10 records over it", err)
	}
	if d := readDead(t, o.output+".dead"); len(d) != 3 {
		t.Errorf("a limit of 0.2: %d dead letters, want 3", len(d))
	}
	o.maxDead, o.output = 0.5, filepath.Join(dir, "lax")
	if err := run(context.Background(), o, io.Discard); err != nil {
		t.Errorf("a limit of 0.5: %v", err)
	}
	o.maxDead = -1
	if _, err := build(context.Background(), o); err == nil || !strings.Contains(err.Error(), "--max-dead-fraction") {
		t.Errorf("a limit of -1: %v, want an error", err)
	}
}

// TestFailureByMarker: the command tells why a run failed from the failure marker the
// pipeline wrote for that run, whatever the runner's error says (Dataflow: "Job …
// failed"), and only from a marker of that run; without one, the runner's error is
// the error.
func TestFailureByMarker(t *testing.T) {
	ctx := context.Background()
	dir := beamtest.TempDir(t)
	o := options{mode: "project", input: "in/*.csv", output: filepath.Join(dir, "scores")}
	runner := errors.New("Job 2026-11-29_01_00_00-123 failed")
	mark := func(f ikpcabeam.Failure) {
		b, _ := json.Marshal(f)
		beamtest.WriteFile(t, failureMarker(o), b)
	}
	mark(ikpcabeam.Failure{Run: "r1", Reason: ikpcabeam.FailureNothingProjected, Records: 5, Dead: 5})
	if err := failedRun(ctx, runner, o, "r1"); err == nil || !strings.Contains(err.Error(), "no point of in/*.csv was projected (5 records, 5 dead letters)") {
		t.Errorf("this run's marker: %v", err)
	}
	if err := failedRun(ctx, runner, o, "r2"); err != runner {
		t.Errorf("another run's marker: %v, want the runner's error", err)
	}
	mark(ikpcabeam.Failure{Run: "r3", Reason: ikpcabeam.FailureDeadLetters, Records: 10, Dead: 4})
	o.maxDead = 0.25
	if err := failedRun(ctx, runner, o, "r3"); err == nil || !strings.Contains(err.Error(), "4 of the 10 records of in/*.csv are dead letters, more than --max-dead-fraction=0.25") {
		t.Errorf("a dead-letter marker: %v", err)
	}
	if err := failedRun(ctx, nil, o, "r4"); err != nil {
		t.Errorf("a run that succeeded: %v", err)
	}
	if _, err := os.Stat(failureMarker(o)); err == nil {
		t.Error("a run that succeeded left an earlier run's marker")
	}
	os.Remove(failureMarker(o))
	if err := failedRun(ctx, runner, o, "r5"); err != runner {
		t.Errorf("no marker: %v, want the runner's error", err)
	}
}

// TestOverlappingOutputs: --dead equal to --output, or a prefix whose files are the
// other's, is refused before the pipeline runs; the default (--output + ".dead") and
// distinct prefixes are not. Before, equal prefixes were taken, and the two writers
// replaced and removed each other's shards.
func TestOverlappingOutputs(t *testing.T) {
	dir := beamtest.TempDir(t)
	in := filepath.Join(dir, "in.csv")
	beamtest.WriteFile(t, in, []byte("1,2\n3,4\n"))
	out := filepath.Join(dir, "out")
	ok := options{mode: "fit", method: "skpca", input: in, format: "csv", sep: ",", model: filepath.Join(dir, "m"), features: 8, sketch: 2, sigma: 1, block: 256, output: out}
	for _, dead := range []string{out, dir + "/./out", out + ".tmp-x", out + ".claim-y"} {
		o := ok
		o.dead = dead
		if _, err := build(context.Background(), o); err == nil || !strings.Contains(err.Error(), "overlap") {
			t.Errorf("--dead %s, --output %s: %v, want an error", dead, out, err)
		}
	}
	for _, dead := range []string{"", out + ".dead", filepath.Join(dir, "dead"), out + "-dead"} {
		o := ok
		o.dead = dead
		if _, err := build(context.Background(), o); err != nil {
			t.Errorf("--dead %q, --output %s: %v", dead, out, err)
		}
	}
}
