package data

import (
	"bytes"
	"errors"
	"io"
	"math"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/internal/errtest"
)

// errorCases are zero-valued and hostile arguments for every exported function of the
// package that returns an error.
func errorCases() errtest.Cases {
	parse := func(r io.Reader, dim int) func() error {
		return func() error { _, _, err := ParseLIBSVM(r, dim); return err }
	}
	text := func(s string, dim int) func() error { return parse(strings.NewReader(s), dim) }
	line := func(s string, dim int) func() error {
		return func() error { _, _, err := ParseLIBSVMLine(make([]float64, 3), s, dim); return err }
	}
	arg, empty, nonFinite := ikpca.ErrArgument, ikpca.ErrEmpty, ikpca.ErrNonFinite
	var c errtest.Cases
	c.Add("ParseLIBSVM: nil reader", arg, parse(nil, 3))
	c.Add("ParseLIBSVM: nil *strings.Reader", arg, parse((*strings.Reader)(nil), 3))
	c.Add("ParseLIBSVM: nil *bytes.Buffer", arg, parse((*bytes.Buffer)(nil), 0))
	c.Add("ParseLIBSVM: empty", empty, text("", 0))
	c.Add("ParseLIBSVM: blank lines", empty, text("\n \t\r\n", 3))
	c.Add("ParseLIBSVM: labels only, dim inferred", empty, text("1\n-1\n", 0))
	c.Add("ParseLIBSVM: labels only, dim MinInt", empty, text("1\n", math.MinInt))
	c.Add("ParseLIBSVM: dim MaxInt", arg, text("1 1:1\n", math.MaxInt))
	c.Add("ParseLIBSVM: rows × dim too large", arg, text("1 1:1\n2 1:1\n3 1:1\n", 1<<27))
	c.Add("ParseLIBSVM: inferred dim too large", arg, text("1 300000000:1\n", 0))
	c.Add("ParseLIBSVM: label NaN", nonFinite, text("NaN 1:1\n", 0))
	c.Add("ParseLIBSVM: label +Inf", nonFinite, text("+Inf 1:1\n", 0))
	c.Add("ParseLIBSVM: label overflows", nonFinite, text("1e400 1:1\n", 0))
	c.Add("ParseLIBSVM: label not a number", arg, text("abc 1:1\n", 0))
	c.Add("ParseLIBSVM: value NaN", nonFinite, text("1 1:nan\n", 0))
	c.Add("ParseLIBSVM: value −Inf on line 2", nonFinite, text("1 1:1\n1 2:-inf\n", 0))
	c.Add("ParseLIBSVM: value overflows", nonFinite, text("1 1:-1e999\n", 0))
	c.Add("ParseLIBSVM: value not a number", arg, text("1 1:x\n", 0))
	c.Add("ParseLIBSVM: empty value", arg, text("1 3:\n", 0))
	c.Add("ParseLIBSVM: missing colon", arg, text("1 3\n", 0))
	c.Add("ParseLIBSVM: empty index", arg, text("1 :1\n", 0))
	c.Add("ParseLIBSVM: index 0", arg, text("1 0:1\n", 0))
	c.Add("ParseLIBSVM: signed index", arg, text("1 +2:1\n", 0))
	c.Add("ParseLIBSVM: index overflows int", arg, text("1 99999999999999999999999:1\n", 0))
	c.Add("ParseLIBSVM: index above dim", arg, text("1 4:1\n", 3))
	c.Add("ParseLIBSVM: index repeated", arg, text("1 2:1 2:1\n", 0))
	c.Add("ParseLIBSVM: index descending", arg, text("1 3:1 2:1\n", 0))
	c.Add("ParseLIBSVM: NUL byte", arg, text("1 1:1\x00\n", 0))
	c.Add("ParseLIBSVM: invalid UTF-8", arg, text("\xff 1:1\n", 0))
	c.Add("ParseLIBSVMLine: dim 0", arg, line("1 1:1", 0))
	c.Add("ParseLIBSVMLine: dim MinInt", arg, line("1 1:1", math.MinInt))
	c.Add("ParseLIBSVMLine: dim MaxInt", arg, line("1 1:1", math.MaxInt))
	c.Add("ParseLIBSVMLine: empty", empty, line("", 3))
	c.Add("ParseLIBSVMLine: blank", empty, line(" \t\r\n", 3))
	c.Add("ParseLIBSVMLine: label NaN", nonFinite, line("NaN 1:1", 3))
	c.Add("ParseLIBSVMLine: value Inf", nonFinite, line("1 1:Inf", 3))
	c.Add("ParseLIBSVMLine: value overflows", nonFinite, line("1 1:1e309", 3))
	c.Add("ParseLIBSVMLine: index above dim", arg, line("1 4:1", 3))
	c.Add("ParseLIBSVMLine: index descending", arg, line("1 3:1 2:1", 3))
	c.Add("ParseLIBSVMLine: malformed token", arg, line("1 x:1", 3))
	c.Add("ParseLIBSVMLine: two lines", arg, line("1 1:1\n2 2:1", 3))
	idxCases(&c)
	return c
}

// sentinels are the package's: it returns no ErrDimension, ErrEncoding or
// ErrNotConverged, and an error of those kinds fails the test.
var sentinels = errtest.Of(ErrNonFinite, ErrEmpty, ErrArgument)

// TestErrorKinds runs every exported function of the package that returns an error
// with zero-valued and hostile arguments: each call returns an error — it does not
// panic — that wraps the expected ikpca kind, the package's sentinel for it, first, and
// no other kind.
func TestErrorKinds(t *testing.T) { sentinels.Run(t, errorCases()) }

// TestReaderError: the reader's own error is returned as it is, under the line number,
// and wraps no kind of the module's, which it is not the package's to choose.
func TestReaderError(t *testing.T) {
	boom := errors.New("boom")
	_, _, err := ParseLIBSVM(io.MultiReader(strings.NewReader("1 1:1\n"), iotest.ErrReader(boom)), 0)
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("got %v, want the reader's error at line 2", err)
	}
	if ks := errtest.KindsOf(err); ks != nil {
		t.Errorf("the reader's error %v wraps %v", err, ks)
	}
}

// TestErrorsCoverEveryFunction reads the package's source and checks that errorCases
// calls every exported function that returns an error, so that a new one cannot be
// added without its hostile arguments.
func TestErrorsCoverEveryFunction(t *testing.T) { errorCases().Cover(t, 1) }
