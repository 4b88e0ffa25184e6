package main

import (
	"fmt"
	"io"
	"math"
	"runtime"
	"time"

	"github.com/dustin/go-humanize"

	"github.com/ikpca/ikpca/native"
)

// phaseTimer measures the phases of a fit for --timings: each phase's wall time and
// the processor time the whole process spent in it (user and system, getrusage), whose
// ratio is the cores the phase kept busy on average — what says whether a phase runs in
// parallel (docs/performance.md, "Phases and threads") — and, for tracking, the wall
// times of its updates' parts (rowAdder.tally). A nil *phaseTimer measures nothing.
type phaseTimer struct {
	w      io.Writer
	name   string
	wall   time.Time
	cpu    time.Duration
	parts  []part // of the phase in progress
	phases []phase
}

type phase struct {
	name      string
	wall, cpu time.Duration
	parts     []part
}

// part is a part of a phase's wall time, summed over the phase's steps.
type part struct {
	name string
	wall time.Duration
}

// newPhaseTimer returns a timer that reports to w, or nil when off.
func newPhaseTimer(w io.Writer, on bool) *phaseTimer {
	if !on {
		return nil
	}
	return &phaseTimer{w: w}
}

// start ends the current phase, if any, and starts the phase name.
func (t *phaseTimer) start(name string) {
	if t == nil {
		return
	}
	t.stop()
	t.name, t.wall, t.cpu, t.parts = name, time.Now(), processCPU(), nil
}

// part adds d to the part name of the current phase (a track's update parts).
func (t *phaseTimer) part(name string, d time.Duration) {
	if t == nil || t.name == "" {
		return
	}
	for i := range t.parts {
		if t.parts[i].name == name {
			t.parts[i].wall += d
			return
		}
	}
	t.parts = append(t.parts, part{name, d})
}

// stop ends the current phase.
func (t *phaseTimer) stop() {
	if t == nil || t.name == "" {
		return
	}
	t.phases = append(t.phases, phase{t.name, time.Since(t.wall), processCPU() - t.cpu, t.parts})
	t.name = ""
}

// report ends the current phase and writes one line a phase and a total: wall seconds,
// processor seconds and their ratio, the cores busy on average.
func (t *phaseTimer) report() {
	if t == nil {
		return
	}
	t.stop()
	fmt.Fprintf(t.w, "ikpca: timings (%s; GOMAXPROCS %d):\n", native.Active(), runtime.GOMAXPROCS(0))
	var wall, cpu time.Duration
	for _, p := range t.phases {
		fmt.Fprintf(t.w, "  %-9s %8.3f s wall %8.3f s cpu %5.2f cores\n", p.name, p.wall.Seconds(), p.cpu.Seconds(), cores(p))
		if len(p.parts) > 0 {
			rest := p.wall
			for _, q := range p.parts {
				fmt.Fprintf(t.w, "    %-8s%8.3f s wall\n", q.name, q.wall.Seconds())
				rest -= q.wall
			}
			fmt.Fprintf(t.w, "    %-8s%8.3f s wall\n", "other", rest.Seconds())
		}
		wall += p.wall
		cpu += p.cpu
	}
	fmt.Fprintf(t.w, "  %-9s %8.3f s wall %8.3f s cpu %5.2f cores\n", "total", wall.Seconds(), cpu.Seconds(), cores(phase{wall: wall, cpu: cpu}))
}

// cores returns the processor time of p over its wall time.
func cores(p phase) float64 {
	if p.wall <= 0 {
		return 0
	}
	return p.cpu.Seconds() / p.wall.Seconds()
}

// parseBytes reads a size for --pass-memory: a number of bytes, with or without a unit
// (KiB, MiB, GiB or kB, MB, GB; humanize.ParseBytes), at most math.MaxInt.
func parseBytes(s string) (int, error) {
	n, err := humanize.ParseBytes(s)
	if err != nil {
		return 0, err
	}
	if n > math.MaxInt {
		return 0, fmt.Errorf("more than %d bytes", math.MaxInt)
	}
	return int(n), nil
}
