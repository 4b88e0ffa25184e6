#!/usr/bin/python3
"""The Markdown report of bench/pca_vs_sklearn.sh (issue 22), from the files of one run.

Reads, in the run's directory: machine.csv (CPU, CPUs, OpenBLAS core of the Go side and
of numpy, date); results.csv (name, points, wall seconds, max RSS MiB, exit status of
each process under /usr/bin/time -v; runs with the same directory add to it, a name's
last line counts); NAME.out (bench/pcafit's JSON or bench/sklearn_pca.py's); and
NAME.values and NAME.components, the top variances and components each process wrote.

The accuracy is measured against scikit-learn's PCA(svd_solver="full") (sklearn-full),
which computes the SVD of the centred points: its variances are exact to a few ε·σ₁σⱼ
and its components to a few ε·σ₁²/gap. For each run, over its top k (fewer for a
rank-r model that holds fewer):

  - max |vⱼ − v̂ⱼ|/v₁ and max |vⱼ − v̂ⱼ|/vⱼ, v the reference's variances;
  - the sine of the largest principal angle between the spans of the top j components
    (j = 10 and k), ‖(I − UUᵀ)V‖₂ with U the reference's and V the run's components as
    columns: the residual formed and its spectral norm taken directly (its largest
    singular value, numpy.linalg.norm(·, 2)), which resolves sines down to rounding,
    where 1 − cos² from the cosines σmin(UᵀV) cannot below about 1e-8.

The tolerance of "exact" is that of package pca's tests against stat.PC (docs/design.md,
"Linear PCA"): a backward error E of at most 1e-11·λ₁ on the scatter matrix, whence
|Δvⱼ| ≤ 1e-11·v₁ (Weyl) and a sine of the top j at most 1e-11·v₁/(vⱼ − vⱼ₊₁)
(Davis–Kahan), the gap from the reference's (j + 1)-th variance. Prints the tables, each
target with PASS or FAIL.

    /usr/bin/python3 bench/pca_report.py DIR --k 50 --rank 50 --blocks 1000,3920
"""

import argparse
import csv
import json
import os

import numpy as np

from reportlib import Runs, fmt, verdict

# The backward error, relative to λ₁, within which a fit counts as exact (see above).
EXACT = 1e-11
# A one-at-a-time fit costs at most this many d×d×d dgemms an image.
DGEMMS_PER_POINT = 2.0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("dir")
    p.add_argument("--k", type=int, default=50)
    p.add_argument("--rank", type=int, default=50)
    p.add_argument("--blocks", default="1000,3920")
    p.add_argument("--tiny", action="store_true")
    a = p.parse_args()
    Report(a).write()


class Report(Runs):
    @property
    def blocks(self):
        return [int(b) for b in self.a.blocks.split(",") if b]

    def out(self, name):
        """The JSON object a process printed, or None."""
        path = self.path(name + ".out")
        if not os.path.exists(path) or os.path.getsize(path) == 0:
            return None
        return json.load(open(path))

    def outputs(self, name):
        """The variances and the components (k×d) a process wrote, or None."""
        v, c = self.path(name + ".values"), self.path(name + ".components")
        if not (os.path.exists(v) and os.path.exists(c)):
            return None
        return np.loadtxt(v, ndmin=1), np.loadtxt(c, delimiter=",", ndmin=2)

    def accuracy(self, name, ref):
        """The errors of a run's outputs against the reference (see the module's doc)."""
        got = self.outputs(name)
        if got is None or ref is None:
            return None
        vals, comps = got
        rvals, rcomps = ref
        k = min(len(vals), self.a.k, len(rvals))
        dv = np.abs(vals[:k] - rvals[:k])
        acc = {"k": k, "abs": float(np.max(dv) / rvals[0]), "rel": float(np.max(dv / rvals[:k]))}
        for j in (10, k):
            if j <= k:
                U, V = rcomps[:j].T, comps[:j].T
                acc[f"sine{j}"] = float(np.linalg.norm(V - U @ (U.T @ V), 2))
        return acc

    def write(self):
        a = self.a
        print("## Linear PCA against scikit-learn (issue 22)\n")
        if a.tiny:
            print("**-tiny: reduced sizes, a check that the scripts run; these are not the issue's measurements.**\n")
        full = self.out("sklearn-full")
        add = self.out("pca-add")
        if os.path.exists(self.path("machine.csv")):
            cpu, cpus, core, npcore, date = next(csv.reader(open(self.path("machine.csv"))))
            go = next((j for j in (self.out(n) for n in self.names()) if j and "backend_config" in j), None)
            backend = f" ({go['backend_config']}, {go['threads']} threads)" if go else ""
            size = f"{full['n']:,} images of d = {full['d']}" if full else ""
            print(f"Machine: {cpu}, {cpus} CPUs; Go: OpenBLAS core {core}{backend}; numpy: OpenBLAS core {npcore}; {date}. "
                  f"Fashion-MNIST, {size}, one IDX file read by every process. Each run is one process under "
                  "/usr/bin/time -v: wall time and maximum resident set size, reading the input and starting up "
                  "included; \"fit\" is the time in the model's calls alone (pca's Add/AddBatch, scikit-learn's fit). "
                  "The Go processes stream the images (they hold the model and one block), scikit-learn holds all of "
                  "them as float64.\n")
        ref = self.outputs("sklearn-full")
        if ref is not None:
            rv = ref[0]
            gaps = {j: (rv[j - 1] - rv[j]) / rv[0] for j in (10, a.k) if j < len(rv)}
            print("Reference: scikit-learn's PCA(svd_solver=\"full\"), the SVD of the centred points. Gaps "
                  + ", ".join(f"(v{j} − v{j + 1})/v₁ = {g:.3g}" for j, g in gaps.items())
                  + f"; v₁ = {rv[0]:.6g}. Errors over the top k = {a.k} variances (a rank-r model's own top r), "
                  "sines ‖(I − UUᵀ)V‖₂ of the top 10 and top k components.\n")
        else:
            gaps = {}
        print("| run | fit s | wall s | peak RSS MiB | model MiB | max \\|Δvⱼ\\|/v₁ | max \\|Δvⱼ\\|/vⱼ | sine top 10 | sine top k |")
        print("|---|---|---|---|---|---|---|---|---|")
        accs = {}
        for name, label in self.rows():
            o, r = self.out(name), self.runs.get(name)
            if o is None and r is None:
                continue
            fit = o.get("fit_s", o.get("seconds")) if o else None
            mib = o["model_bytes"] / 2**20 if o and "model_bytes" in o else None
            acc = self.accuracy(name, ref) if name != "sklearn-full" else None
            accs[name] = acc
            if name == "sklearn-full":
                cells = ["(reference)"] * 4
            elif acc is None:
                cells = ["–"] * 4
            else:
                cells = [fmt(acc["abs"]), fmt(acc["rel"]), fmt(acc.get("sine10")), fmt(acc.get(f"sine{a.k}"))]
            status = "" if not r or r["status"] == 0 else f" (exit {r['status']})"
            print(f"| {label}{status} | {fmt(fit)} | {fmt(r and r['wall'])} | {fmt(r and r['rss'], '.0f')} | "
                  f"{fmt(mib, '.1f')} | " + " | ".join(cells) + " |")
        print()

        go = add or next((self.out(n) for n in self.names() if n.startswith("pca-") and self.out(n)), None)
        if go and "dgemm_s" in go:
            d = go["d"]
            line = (f"The physical limit: one {d}×{d}×{d} dgemm (native.Gemm, OpenBLAS, best of "
                    f"{len(go['dgemm_runs_s'])} in the process of {go['method']}) takes {go['dgemm_s'] * 1e3:.3g} ms "
                    f"({go['dgemm_gflops']:.3g} GFLOP/s)")
            if full and "numpy_dgemm_s" in full:
                line += f"; numpy's, in scikit-learn's process, {full['numpy_dgemm_s'] * 1e3:.3g} ms"
            print(line + ".\n")
            print("| run | time an image (ms) | dgemms an image | time a block (ms) | dgemms a block |")
            print("|---|---|---|---|---|")
            for name, label in self.rows():
                o = self.out(name)
                if not o or not name.startswith("pca-") or "dgemm_s" not in o:
                    continue
                blk = o["fit_s"] / o["blocks"] if o.get("blocks") else None
                # Each process is compared with its own dgemm, timed in the same process.
                print(f"| {label} | {o['per_point_s'] * 1e3:.3g} | {o['per_point_dgemms']:.3g} | "
                      f"{fmt(blk and blk * 1e3)} | {fmt(o.get('per_block_dgemms'))} |")
            print()

        for b in self.blocks:
            ours, theirs = self.out(f"pca-block-{b}"), self.out(f"sklearn-ipca-{b}")
            if ours and theirs:
                self.target(f"exact pca, AddBatch of {b}, fit time over IncrementalPCA(batch_size={b})'s "
                            f"({ours['fit_s']:.3g} s against {theirs['seconds']:.3g} s)",
                            ours["fit_s"] / theirs["seconds"], 1)
        for name, label in self.rows():
            if not (name == "pca-add" or name.startswith("pca-block-")):
                continue
            acc = accs.get(name)
            if not acc:
                continue
            self.target(f"{label}: max |Δvⱼ|/v₁ over the top {acc['k']}", acc["abs"], EXACT)
            for j in (10, acc["k"]):
                if f"sine{j}" in acc and j in gaps:
                    self.target(f"{label}: sine of the top {j} (limit 1e-11·v₁/(v{j} − v{j + 1}))",
                                acc[f"sine{j}"], EXACT / gaps[j])
        rk = self.out(f"pca-rank-{a.rank}")
        if rk and "error_bound_relative" in rk and accs.get(f"pca-rank-{a.rank}"):
            # The certificate must hold: Weyl's |Δλⱼ| ≤ ‖S − S̃‖₂ ≤ ErrorBound.
            self.target(f"pca rank {a.rank}: max |Δvⱼ|/v₁ within its certificate, ErrorBound/λ₁ = "
                        f"{rk['error_bound_relative']:.3g}", accs[f"pca-rank-{a.rank}"]["abs"], rk["error_bound_relative"])
        if add and "per_point_dgemms" in add:
            self.target(f"exact pca one image at a time: {d}³ dgemms an image", add["per_point_dgemms"], DGEMMS_PER_POINT)
        if self.targets:
            print("Targets:\n")
            print("\n".join(self.targets))
            print()
        exact = [accs[n] for n, _ in self.rows() if (n == "pca-add" or n.startswith("pca-block-")) and accs.get(n)]
        approx = [(label, accs[n]) for n, label in self.rows()
                  if (n.startswith("sklearn-ipca-") or n == "sklearn-randomized" or n.startswith("pca-rank-")) and accs.get(n)]
        if exact and approx:
            keys = {q for e in exact for q in e if q != "k"}
            worst = {q: max(e[q] for e in exact if q in e) for q in keys}
            print("The approximate fits, against the worst exact pca fit:\n")
            for label, acc in approx:
                parts = []
                # A rank-r model's errors are over its own top r, its sine that of its top r.
                j = acc["k"]
                sines = [(f"sine{i}", f"sine top {i}") for i in sorted({10, j}) if i <= j]
                for q, what in [("abs", "max |Δvⱼ|/v₁"), ("rel", "max |Δvⱼ|/vⱼ")] + sines:
                    if q in acc and q in worst and worst[q] > 0:
                        parts.append(f"{what} {acc[q]:.3g} ({acc[q] / worst[q]:.2g}× pca's)")
                if parts:
                    print(f"- {label}: " + ", ".join(parts))
            print()

    def names(self):
        return [n for n, _ in self.rows()]

    def rows(self):
        """The runs in the table's order: name and label."""
        a = self.a
        rows = [("pca-add", "pca exact, Add one at a time")]
        rows += [(f"pca-block-{b}", f"pca exact, AddBatch of {b}") for b in self.blocks]
        rows += [(f"pca-rank-{a.rank}", f"pca rank {a.rank}, Add one at a time")]
        rows += [("sklearn-full", f"PCA({a.k}, \"full\")"), ("sklearn-randomized", f"PCA({a.k}, \"randomized\")")]
        rows += [(f"sklearn-ipca-{b}", f"IncrementalPCA({a.k}, batch_size={b})") for b in self.blocks]
        # Its default batch_size, 5·d, when no block size of ours is that.
        rows += [("sklearn-ipca-default", f"IncrementalPCA({a.k}), default batch_size = 5·d")]
        return rows


if __name__ == "__main__":
    main()
