package main

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func TestDemo(t *testing.T) {
	var out bytes.Buffer
	if err := run([]string{"-n", "120", "-m0", "5", "-top", "3"}, &out); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	t.Log("\n" + text)
	for _, want := range []string{"backend:", "UCI Yeast (embedded), 120 of 1484", "115 points added", "none dropped", "top 3:", "drift:", "batch:"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	// The incremental decomposition must match the batch one to rounding.
	m := regexp.MustCompile(`within ([0-9.e+-]+)·λmax.*within ([0-9.e+-]+); probe: orthogonality ([0-9.e+-]+), residual ([0-9.e+-]+)`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no drift line")
	}
	for _, s := range m[1:] {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || v > 1e-12 {
			t.Errorf("drift measure %s", s)
		}
	}
}

func TestDemoBadFlags(t *testing.T) {
	for _, args := range [][]string{{"-n", "1"}, {"-n", "99999"}, {"-top", "0"}, {"-n", "10", "-top", "10"}, {"-m0", "0"}, {"-n", "10", "-m0", "11"}, {"-bogus"}} {
		var out bytes.Buffer
		if err := run(args, &out); err == nil {
			t.Errorf("%v: no error", args)
		}
	}
}
