package kpca

import "context"

// A window tracked at a rank polishes itself from the points it stores, so that its
// certificate restarts from what the polish certifies instead of growing with every
// step (docs/design.md, "Windows at rank r"): its configuration, WindowPolish, and the
// count of the steps to the next one, maybePolish.

// DefaultWindowPolishPasses is the number of passes of a tracked window's self-polish
// when WindowPolish.Passes is zero: from a basis tracked for a window's length, two
// passes bring the top eigenvalues to about 1e-11·λ₁ (docs/design.md, "Polishing"), far
// below what the tracking loses again in the steps that follow.
const DefaultWindowPolishPasses = 2

// WindowPolish configures the self-polish of a window tracked at a rank
// (docs/design.md, "Windows at rank r"). Every Every steps — points added to the window
// — the model polishes itself from the points it stores (Model.Polish of Passes
// passes), which brings its pairs to batch accuracy and restarts ErrorBound and
// ValueBounds from what the polish certifies, so that they stay within a constant of
// the true error over any stream length instead of growing with it. The cost is Passes
// products of the window's kernel matrix with Rank vectors, O(Window²·(Dim + Rank)),
// once every Every steps: amortised over the default Every = Window, Passes times a
// kernel column and its share of a product with the tracked vectors a step. A
// self-polish that fails (a kernel value that is not finite) leaves the model as it was
// and is reported in Stats.PolishErr; the point added stays added.
type WindowPolish struct {
	// Every is the number of points added between two self-polishes. Zero means the
	// Window: each polish sees a window whose every point is new. Negative turns the
	// self-polish off, leaving the free running bound to grow with the stream, as a
	// growing model's does.
	Every int
	// Passes is the number of passes of each self-polish, 1 to MaxPolishPasses; zero
	// means DefaultWindowPolishPasses.
	Passes int
}

// every returns the steps between two self-polishes of a window of w points, or 0 for
// none.
func (p WindowPolish) every(w int) int {
	switch {
	case p.Every < 0:
		return 0
	case p.Every == 0:
		return w
	}
	return p.Every
}

// passes returns the passes of a self-polish.
func (p WindowPolish) passes() int {
	if p.Passes == 0 {
		return DefaultWindowPolishPasses
	}
	return p.Passes
}

// maybePolish counts the added points of a window tracked at a rank and polishes it
// when Options.WindowPolish says (see WindowPolish): the model stores the window's
// points, so that a polish from them restarts its certificate, which would otherwise
// grow with every step (docs/design.md, "Windows at rank r"). A polish that fails leaves
// the model as it was (polish is transactional) and is recorded in Stats.PolishErr; it
// is tried again after as many points.
func (md *Model) maybePolish(added int) {
	if md.rank == 0 || md.opts.Window == 0 || md.precomputed() {
		return
	}
	every := md.opts.WindowPolish.every(md.opts.Window)
	if every == 0 {
		return
	}
	md.sincePolish += added
	if md.sincePolish < every {
		return
	}
	md.sincePolish = 0
	if _, k := md.thin.Dims(); k == 0 || md.m < 2 {
		return // nothing to polish: no pair, so no truncation for the bound to count
	}
	err := md.polish(context.Background(), md.opts.WindowPolish.passes())
	md.stats.PolishErr = err
	if err == nil {
		md.stats.Polishes++
	}
}
