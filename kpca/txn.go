package kpca

import (
	"github.com/ikpca/ikpca/update"
)

// A txn is the rollback of one mutating call of a Model (docs/design.md, "Transactions"):
// the call runs inside transact, which begins a txn — records what the call may change,
// as its scope says — runs the call's body, and on error rolls the model back to what
// was recorded, bit for bit, before it ends the txn. Every exported method that changes
// the points, the decomposition or the running sums is such a call: Add, AddBatch,
// AddRows, AddColumn, Remove, RemoveColumn, Refresh and Polish. (Fit and New build a new
// model, which a failure discards; CopyFrom and UnmarshalBinary replace the model whole
// only after every check; KeepKernel and Reserve change no state, only capacity and what
// lies beyond the points.)
//
// Its invariants, which TestTxn* check:
//
//   - A txn records the scalars (the number of points, the sums' totals, the certificate,
//     the counters, Stats) and the last step's update statistics always, and the
//     decomposition, the row sums and the points as its scope says. A call whose scope
//     records no decomposition (scopeStep) makes at most one update of it — an update
//     of package update, which leaves it as it was when it fails — and writes the sums
//     and the points only after that update succeeded.
//   - Transactions nest: a txn holds what it recorded in buffers the model lends it for
//     its duration (Model.spare) and takes back when it ends, so that an inner txn
//     restores what it recorded and the outer one everything, and no two hold the same
//     buffer. A txn begun while another holds the buffers allocates its own. None nests:
//     transact is called only at the entry of an exported method, and no code that runs
//     inside one calls such a method (TestTxnBoundary), so that no call allocates for it.
//   - Once the model's buffers have grown to its size (Reserve, or a first call), a txn
//     allocates nothing: a window step and a batch of blocks take no garbage a call.
type txn struct {
	scope       scope
	m           int
	since       int
	sincePolish int
	total, self float64
	cert        certificate
	stats       Stats
	buf         txnBuffers
}

// scope is what a call may change beyond the scalars every txn records.
type scope uint8

const (
	// scopeStep: one update of the decomposition, the sums and points written after it
	// (Add or AddColumn below a full window, Remove, Refresh, Polish, an AddBatch of one
	// block step outside a window): nothing more.
	scopeStep scope = iota
	// scopeSlide: a full window's step, the oldest point removed and then a point added
	// (Add, a row of AddRows): the decomposition, the row sums and the oldest point.
	scopeSlide
	// scopeAppend: several updates that only append points (AddBatch without a window,
	// a RankOneModel's step): the decomposition and the row sums; the points before the
	// first m are never written, and those after it are not the model's.
	scopeAppend
	// scopeAll: several updates that may move every point (AddBatch in a window): the
	// decomposition, the row sums and every point.
	scopeAll
)

// txnBuffers are the arrays a txn records into, lent by the model (Model.spare) and
// reused by every call.
type txnBuffers struct {
	thin    *update.Thin // the decomposition
	sums    []float64    // the row sums
	points  []float64    // the oldest point (scopeSlide) or every point (scopeAll)
	updates []update.Stats
}

// bytes is the memory of the buffers' arrays.
func (b *txnBuffers) bytes() int {
	n := 8 * (cap(b.sums) + cap(b.points))
	if b.thin != nil {
		n += b.thin.Bytes()
	}
	return n
}

// reserve makes room in the buffers for a window step of n points of dimension d, so
// that a window's steps allocate nothing after Reserve.
func (b *txnBuffers) reserve(n, d int) {
	if cap(b.sums) < n {
		b.sums = make([]float64, 0, n)
	}
	if cap(b.points) < d {
		b.points = make([]float64, 0, d)
	}
}

// transact runs body, the mutating part of a call of the given scope, in a txn: on
// error the model is as it was before, and the error is returned.
func (md *Model) transact(s scope, body func() error) error {
	tx := md.begin(s)
	err := body()
	if err != nil {
		md.rollback(&tx)
	}
	md.end(&tx)
	return err
}

// addScope is the scope of adding one point: a full window's step slides; otherwise
// one update.
func (md *Model) addScope() scope {
	if md.opts.Window > 0 && md.m >= md.opts.Window {
		return scopeSlide
	}
	return scopeStep
}

// begin records what a call of scope s may change, in the buffers the model lends.
func (md *Model) begin(s scope) txn {
	tx := txn{scope: s, m: md.m, since: md.since, sincePolish: md.sincePolish,
		total: md.total, self: md.self, cert: md.cert, stats: md.stats, buf: md.spare}
	md.spare = txnBuffers{}
	b := &tx.buf
	b.updates = append(b.updates[:0], md.updates...)
	if s == scopeStep {
		return tx
	}
	if b.thin == nil {
		b.thin = new(update.Thin)
	}
	b.thin.CopyFrom(&md.thin)
	b.sums = append(b.sums[:0], md.rowSum[:md.m]...)
	switch s {
	case scopeSlide:
		b.points = append(b.points[:0], md.point(0)...)
	case scopeAll:
		b.points = append(b.points[:0], md.x[:md.m*md.d]...)
	}
	return tx
}

// rollback puts back what tx recorded.
func (md *Model) rollback(tx *txn) {
	b := &tx.buf
	if tx.scope != scopeStep {
		md.thin.CopyFrom(b.thin)
		md.ensure(tx.m)
		copy(md.rowSum, b.sums)
		md.restorePoints(tx)
	}
	md.m, md.since, md.sincePolish = tx.m, tx.since, tx.sincePolish
	md.total, md.self, md.cert, md.stats = tx.total, tx.self, tx.cert, tx.stats
	md.updates = append(md.updates[:0], b.updates...)
	md.setView()
}

// restorePoints puts back the points of a txn of scopeSlide or scopeAll. A window's step
// fails either before anything changed or after its removal of the oldest point, which
// moved the others down by one (the addition writes its point last): then md.m is one
// less than it was, and the points move back up behind the oldest. Appended points lie
// beyond the first tx.m, which no call of scopeAppend writes.
func (md *Model) restorePoints(tx *txn) {
	d := md.d
	switch tx.scope {
	case scopeSlide:
		if m := tx.m; md.m == m-1 {
			copy(md.x[d:m*d], md.x[:(m-1)*d])
			copy(md.x[:d], tx.buf.points)
		}
	case scopeAll:
		copy(md.x, tx.buf.points)
	}
}

// end gives the buffers back to the model.
func (md *Model) end(tx *txn) {
	md.spare = tx.buf
	tx.buf = txnBuffers{}
}
