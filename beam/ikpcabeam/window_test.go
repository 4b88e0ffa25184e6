package ikpcabeam

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/graph/window"

	"github.com/ikpca/ikpca/beam/internal/beamtest"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/stream"
)

// TestWindowedInputRefused: every transform that takes a PCollection and emits in
// FinishBundle — the fits, projection, the writers — refuses, when the pipeline is
// built, input in other windows than the global one (an ErrArgument), and takes the
// same input windowed back into the global window. Before, windowed input was taken,
// and FinishBundle's emits put per-window results in the global window.
func TestWindowedInputRefused(t *testing.T) {
	dir := beamtest.TempDir(t)
	rbf := kernel.Spec{Name: "rbf", Sigma: 1}
	proto, err := NewSKPCA(kernel.RBF{Sigma: 1}, 2, stream.SKPCAOptions{Features: 10, Sketch: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	entries := map[string]func(s beam.Scope, points, model beam.PCollection) error{
		"Fit": func(s beam.Scope, points, _ beam.PCollection) error {
			_, _, err := Fit(s, points, proto, FitOptions{})
			return err
		},
		"FitSKPCA": func(s beam.Scope, points, _ beam.PCollection) error {
			_, _, err := FitSKPCA(s, points, kernel.RBF{Sigma: 1}, 2, stream.SKPCAOptions{Features: 10, Sketch: 2, Seed: 1}, FitOptions{})
			return err
		},
		"FitNystrom": func(s beam.Scope, points, _ beam.PCollection) error {
			_, _, err := FitNystrom(s, points, NystromOptions{Dim: 2, Kernel: rbf, Landmarks: 2, Seed: 1}, FitOptions{})
			return err
		},
		"FitNystromOn": func(s beam.Scope, points, _ beam.PCollection) error {
			_, _, err := FitNystromOn(s, points, points, NystromOptions{Dim: 2, Kernel: rbf}, FitOptions{})
			return err
		},
		"FitNystromSampled": func(s beam.Scope, points, _ beam.PCollection) error {
			_, _, err := FitNystromSampled(s, points, points, NystromOptions{Dim: 2, Kernel: rbf, Landmarks: 2, Seed: 1}, FitOptions{})
			return err
		},
		"Project": func(s beam.Scope, points, model beam.PCollection) error {
			_, _, err := Project(s, model, points, ProjectOptions{})
			return err
		},
		"WriteScores": func(s beam.Scope, points, _ beam.PCollection) error {
			return WriteScores(s, filepath.Join(dir, "scores"), beam.ParDo(s, pointScores, points))
		},
		"WriteDeadLetters": func(s beam.Scope, points, _ beam.PCollection) error {
			return WriteDeadLetters(s, filepath.Join(dir, "dead"), beam.ParDo(s, pointLetterOf, points))
		},
		"WriteModel": func(s beam.Scope, _, model beam.PCollection) error {
			return WriteModel(s, filepath.Join(dir, "model"), model)
		},
	}
	for name, entry := range entries {
		for _, windowed := range []bool{true, false} {
			_, s := beam.NewPipelineWithRoot()
			points := beam.Create(s, Point{Source: "a", X: []float64{1, 2}}, Point{Source: "b", Offset: 4, X: []float64{3, 4}})
			model := beam.Create(s, []byte("a model"))
			if windowed {
				points = beam.WindowInto(s, window.NewFixedWindows(time.Minute), points)
				model = beam.WindowInto(s, window.NewFixedWindows(time.Minute), model)
			} else {
				points = beam.WindowInto(s, window.NewGlobalWindows(), beam.WindowInto(s, window.NewFixedWindows(time.Minute), points))
			}
			err := entry(s, points, model)
			if windowed && !errors.Is(err, ErrArgument) {
				t.Errorf("%s of fixed windows: %v, want ErrArgument", name, err)
			}
			if !windowed && err != nil {
				t.Errorf("%s of input windowed back into the global window: %v", name, err)
			}
		}
	}
}

// pointLetterOf is a dead letter of p.
func pointLetterOf(p Point) DeadLetter {
	return DeadLetter{Source: p.Source, Offset: p.Offset, Reason: "test"}
}

func init() { beam.RegisterFunction(pointLetterOf) }
