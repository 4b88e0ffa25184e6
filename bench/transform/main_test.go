package main

import (
	"bytes"
	"io"
	"strconv"
	"strings"
	"testing"
)

// TestMeasure runs every method on both data sets at a tiny size, in this process, and
// checks the CSV row: the method, sizes and a positive rate, time and memory.
func TestMeasure(t *testing.T) {
	cfg := config{n: 40, m: 12, reps: 1}
	for _, d := range datasets {
		for _, m := range methods {
			var out bytes.Buffer
			if err := measure(m, d, cfg, &out); err != nil {
				t.Fatalf("%s on %s: %v", m, d, err)
			}
			f := strings.Split(strings.TrimSpace(out.String()), ",")
			if len(f) != 7 || f[0] != m || f[1] != "40" || f[3] != "12" {
				t.Fatalf("%s on %s: row %q", m, d, out.String())
			}
			if want := map[string]string{"magic": "10", "a9a": "123"}[d]; f[2] != want {
				t.Errorf("%s on %s: d = %s, want %s", m, d, f[2], want)
			}
			for _, v := range f[4:] {
				if x, err := strconv.ParseFloat(v, 64); err != nil || !(x > 0) {
					t.Errorf("%s on %s: field %q is not a positive number", m, d, v)
				}
			}
		}
	}
}

// TestParse checks the command line's defaults and rejections.
func TestParse(t *testing.T) {
	cfg, err := parse(nil, io.Discard)
	if err != nil || cfg.n != 10000 || cfg.m != 1000 || len(cfg.methods) != len(methods) || cfg.one != nil {
		t.Errorf("defaults: %+v, %v", cfg, err)
	}
	for _, bad := range [][]string{
		{"-n", "0"}, {"-m", "5"}, {"-reps", "0"}, {"-methods", "nope"}, {"-datasets", "iris"}, {"-one", "x"},
	} {
		if _, err := parse(bad, io.Discard); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
	if cfg, err := parse([]string{"-one", "ikpca-kernel-block,a9a"}, io.Discard); err != nil || cfg.one[1] != "a9a" {
		t.Errorf("-one: %+v, %v", cfg, err)
	}
}
