package main

import (
	"bytes"
	"errors"
	"image/png"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ikpca/ikpca/data"
)

// TestDenoiseSample runs the study on the embedded sample at a small size (150
// training images, 10 test images) and checks its outputs: a table row per method with
// a finite MSE, every kernel PCA pre-image and the linear PCA closer to the clean
// images than the noisy ones (noise 0.25 adds 0.0625 to the MSE; the projections remove
// most of it, at every size tried), and a PNG of 5 rows of 5 images.
func TestDenoiseSample(t *testing.T) {
	pngPath := filepath.Join(t.TempDir(), "grid.png")
	cfg, err := parse([]string{"-sample", "-train", "150", "-skip", "0", "-test", "10", "-k", "20", "-kfp", "20",
		"-pca", "10", "-show", "5", "-png", pngPath}, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	var out, log bytes.Buffer
	if err := run(cfg, &out, &log); err != nil {
		t.Fatal(err)
	}
	mses := map[string]float64{}
	for _, line := range strings.Split(out.String(), "\n") {
		f := strings.Split(line, "|")
		if len(f) != 5 || strings.HasPrefix(strings.TrimSpace(f[1]), "---") || strings.TrimSpace(f[1]) == "images" {
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(f[2]), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 {
			t.Errorf("row %q: MSE %q", line, f[2])
		}
		mses[strings.TrimSpace(f[1])] = v
	}
	if len(mses) != 5 {
		t.Fatalf("%d rows, want 5:\n%s", len(mses), out.String())
	}
	noisy := mses["noisy"]
	for name, v := range mses {
		if name != "noisy" && v >= noisy {
			t.Errorf("%s: MSE %.4f, the noisy images' %.4f", name, v, noisy)
		}
	}
	f, err := os.Open(pngPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 5*60+4 || b.Dy() != 5*60+4 {
		t.Errorf("PNG of %d×%d pixels, want %d×%d", b.Dx(), b.Dy(), 5*60+4, 5*60+4)
	}
	t.Logf("\n%s", out.String())
}

// TestDenoiseFiles reads Debian's Fashion-MNIST files (skipped, with the command that
// installs them, when they are missing) and runs the study at a small size.
func TestDenoiseFiles(t *testing.T) {
	if _, err := data.FashionMNIST("", 1); errors.Is(err, fs.ErrNotExist) {
		t.Skip("Debian's Fashion-MNIST is not installed: sudo apt-get install dataset-fashion-mnist")
	} else if err != nil {
		t.Fatal(err)
	}
	cfg, err := parse([]string{"-train", "100", "-skip", "0", "-test", "5", "-k", "10", "-kfp", "10", "-pca", "10", "-show", "5"}, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	var out, log bytes.Buffer
	if err := run(cfg, &out, &log); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.String(), "\n| "); n != 7 {
		t.Errorf("%d table lines, want 7:\n%s", n, out.String())
	}
}

// TestParse: impossible flags are errors, not panics.
func TestParse(t *testing.T) {
	for _, args := range [][]string{
		{"-train", "1"}, {"-test", "0"}, {"-skip", "-1"}, {"-sample", "-train", "950"}, {"-k", "1000"},
		{"-kfp", "0"}, {"-pca", "0"}, {"-show", "101"}, {"-gamma", "0"}, {"-alpha", "-1"}, {"-noise", "NaN"},
	} {
		if _, err := parse(args, new(bytes.Buffer)); err == nil {
			t.Errorf("%v: no error", args)
		}
	}
}
