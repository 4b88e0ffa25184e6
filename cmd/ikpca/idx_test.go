package main

import (
	"bytes"
	"compress/gzip"
	binenc "encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ikpca/ikpca/data"
)

// writeFashionIDX writes the first n images of the embedded Fashion-MNIST sample as an
// IDX file (gzip-compressed if compress) and the same pixels, divided by 255, as CSV;
// it returns the two paths.
func writeFashionIDX(t *testing.T, dir string, n int, compress bool) (idx, csv string) {
	t.Helper()
	X := data.FashionMNISTSample().X
	b := []byte{0, 0, 0x08, 3}
	for _, d := range []uint32{uint32(n), 28, 28} {
		b = binenc.BigEndian.AppendUint32(b, d)
	}
	var text strings.Builder
	for i := range n {
		for j, v := range X.RawRowView(i) {
			b = append(b, byte(math.Round(v*255)))
			if j > 0 {
				text.WriteByte(',')
			}
			text.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
		}
		text.WriteByte('\n')
	}
	idx = filepath.Join(dir, "images.idx")
	if compress {
		var z bytes.Buffer
		w := gzip.NewWriter(&z)
		w.Write(b)
		w.Close()
		b, idx = z.Bytes(), idx+".gz"
	}
	csv = filepath.Join(dir, "images.csv")
	writeFile(t, idx, string(b), 0o644)
	writeFile(t, csv, text.String(), 0o644)
	return idx, csv
}

// TestIDXInput: an IDX file of images, plain or gzip-compressed, given to fit — at once
// and as a stream — and to transform gives exactly the outputs of the same pixels
// written as CSV (the pixels are the same float64 values, so every output is the same
// text); and so does standard input.
func TestIDXInput(t *testing.T) {
	dir := t.TempDir()
	for _, compress := range []bool{false, true} {
		idx, csv := writeFashionIDX(t, dir, 60, compress)
		for _, flags := range [][]string{{"--k", "3"}, {"--stream", "--m0", "20", "--rank", "8", "--k", "3"},
			{"--rank", "8", "--batch-max", "30", "--k", "3"}} { // the last tracked: its rows decoded from bytes
			var got [2]string
			for i, in := range []string{idx, csv} {
				ckpt, scores := filepath.Join(dir, "m"+strconv.Itoa(i)), filepath.Join(dir, "s"+strconv.Itoa(i))
				args := append([]string{"fit", "--model", ckpt, "--scores", scores}, flags...)
				code, out, stderr := ikpca(t, "", append(args, in)...)
				if code != 0 {
					t.Fatalf("%v %s: exit %d: %s", flags, in, code, stderr)
				}
				code, proj, stderr := ikpca(t, "", "transform", "--model", ckpt, "--k", "3", in)
				if code != 0 {
					t.Fatalf("transform %s: exit %d: %s", in, code, stderr)
				}
				got[i] = out + readFile(t, scores) + proj
			}
			if got[0] != got[1] || strings.Count(got[0], "\n") < 60 {
				t.Errorf("gzip %v, %v: the IDX file's outputs differ from the CSV's:\n%s\n---\n%s", compress, flags, got[0], got[1])
			}
		}
		raw, _ := os.ReadFile(idx)
		code, out, stderr := ikpca(t, string(raw), "fit", "--k", "3")
		_, want, _ := ikpca(t, "", "fit", "--k", "3", csv)
		if code != 0 || out != want {
			t.Errorf("gzip %v, standard input: exit %d: %s%s", compress, code, out, stderr)
		}
	}
}

// TestIDXInputErrors: a bad IDX file is an error naming the file and saying what is
// wrong (exit status 1), a labels file among them; the flags of text tables are a usage
// error (2); and no output is written or touched.
func TestIDXInputErrors(t *testing.T) {
	dir := t.TempDir()
	idx, _ := writeFashionIDX(t, dir, 30, true)
	raw, _ := os.ReadFile(idx)
	labels := []byte{0, 0, 0x08, 1, 0, 0, 0, 3, 1, 2, 3}
	cases := []struct {
		name    string
		content []byte
		code    int
		want    string
	}{
		{"cut.idx.gz", raw[:len(raw)/2], 1, "the input ends in item"},
		{"labels.idx", labels, 1, "labels?"},
		{"trailing.idx", []byte{0, 0, 0x08, 2, 0, 0, 0, 2, 0, 0, 0, 1, 7, 8, 9}, 1, "bytes after the 2 items"},
		{"type.idx", []byte{0, 0, 0x0a, 2, 0, 0, 0, 1, 0, 0, 0, 1, 0}, 1, "unknown element type 0x0a"},
		{"empty.idx", []byte{0, 0, 0x08, 2, 0, 0, 0, 0, 0, 0, 0, 5}, 1, "no items"},
	}
	scores := filepath.Join(dir, "scores.csv")
	for _, c := range cases {
		path := filepath.Join(dir, c.name)
		writeFile(t, path, string(c.content), 0o644)
		for _, flags := range [][]string{nil, {"--stream", "--m0", "1"}} {
			writeFile(t, scores, "keep\n", 0o644)
			args := append(append([]string{"fit", "--scores", scores}, flags...), path)
			code, out, stderr := ikpca(t, "", args...)
			if code != c.code || out != "" || !strings.Contains(stderr, c.name) || !strings.Contains(stderr, c.want) {
				t.Errorf("%s %v: exit %d, stdout %q, stderr %q; want exit %d and %q", c.name, flags, code, out, stderr, c.code, c.want)
			}
			if s := readFile(t, scores); s != "keep\n" {
				t.Errorf("%s %v: the scores file was changed: %q", c.name, flags, s)
			}
		}
	}
	for _, flag := range [][]string{{"--columns", "1-3"}, {"--sep", "comma"}, {"--header", "no"}} {
		for _, stream := range []string{"--stream=false", "--stream"} {
			code, _, stderr := ikpca(t, "", append([]string{"fit", stream}, append(flag, idx)...)...)
			if code != 2 || !strings.Contains(stderr, "is an IDX file") {
				t.Errorf("%v %s: exit %d: %s", flag, stream, code, stderr)
			}
		}
	}
}
