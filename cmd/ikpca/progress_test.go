package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestProgress: the bar is drawn only on a terminal, and only after a second.
func TestProgress(t *testing.T) {
	var errw bytes.Buffer
	quiet := newProgress(env{errw: &errw, terminal: false}, "work", 10)
	quiet.start = time.Now().Add(-time.Hour)
	quiet.set(5)
	quiet.finish()
	if errw.Len() != 0 {
		t.Errorf("not a terminal, but wrote %q", errw.String())
	}

	early := newProgress(env{errw: &errw, terminal: true}, "work", 10)
	early.start = time.Now().Add(time.Hour) // less than a second elapsed, however slow the machine
	early.set(5)
	if early.bar != nil || errw.Len() != 0 {
		t.Error("bar drawn before a second had passed")
	}

	late := newProgress(env{errw: &errw, terminal: true}, "work", 10)
	late.start = time.Now().Add(-2 * time.Second)
	late.set(5)
	late.finish()
	if late.bar == nil || !strings.Contains(errw.String(), "work") {
		t.Errorf("no bar after a second on a terminal: %q", errw.String())
	}
}
