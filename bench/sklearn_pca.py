#!/usr/bin/python3
"""scikit-learn's linear PCA fitted once on a file of images: the yardstick of package pca (issue 22).

Reads the points as bench/sklearn_fit.py does (CSV without a header, or an IDX file of
unsigned bytes divided by 255: what `go run ./bench/points -dataset fashion-mnist`
writes), fits one model in this process and prints one JSON object on stdout:

    {"method", "n", "d", "components", "batch_size", "batches", "seconds",
     "rss_before_mib", "peak_rss_mib", "numpy_dgemm_s"}

--method is
  full         PCA(n_components=K + 1, svd_solver="full"): the exact reference. The full
               solver computes the whole SVD of the centred points (LAPACK gesdd) and
               keeps the top n_components, so K + 1 costs what K does; the (K + 1)-th
               variance gives the gap that bounds the sine of the top K (Davis–Kahan).
  randomized   PCA(n_components=K, svd_solver="randomized", random_state=0).
  incremental  IncrementalPCA(n_components=K, batch_size=B) (B = --batch-size; its
               default, 5·d, if 0): each batch an SVD of the (K + B + 1)×d matrix of the
               kept components, the batch and the mean correction, truncated back to K
               components — approximate whenever K < d.

seconds is the wall time of fit alone; rss_before_mib the resident memory after the
points are loaded; peak_rss_mib the process's peak (VmHWM) after the fit. numpy_dgemm_s
is the best of 10 products of random d×d matrices with numpy (after the fit): the BLAS
numpy uses, beside bench/pcafit's native.Gemm.

With --out PREFIX it writes the variances (explained_variance_), one a line, to
PREFIX.values and the components (components_, one a line of d comma-separated
numbers) to PREFIX.components, with 17 significant digits: the files bench/pcafit
writes, which bench/pca_report.py compares.

    go run ./bench/points -dataset fashion-mnist -n 0 -o /tmp/fashion.idx
    /usr/bin/python3 bench/sklearn_pca.py --points /tmp/fashion.idx --method full --components 50 --out /tmp/full
    /usr/bin/python3 bench/sklearn_pca.py --points /tmp/fashion.idx --method incremental --components 50 --batch-size 1000
"""

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sklearn_fit import load, rss_mib  # noqa: E402  (the same reader as the kernel benchmark)

METHODS = ("full", "randomized", "incremental")


def write_outputs(prefix, variances, components):
    """Writes the variances one a line and the components one a line, repr precision."""
    with open(prefix + ".values", "w") as f:
        for v in variances:
            f.write(f"{float(v)!r}\n")
    with open(prefix + ".components", "w") as f:
        for row in components:
            f.write(",".join(repr(float(v)) for v in row) + "\n")


def numpy_dgemm(d, runs=10):
    """The best time of runs products of random d×d matrices (one untimed first)."""
    import numpy as np

    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((d, d)), rng.standard_normal((d, d))
    a @ b
    best = float("inf")
    for _ in range(runs):
        t = time.perf_counter()
        a @ b
        best = min(best, time.perf_counter() - t)
    return best


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--points", required=True, help="CSV or IDX file of the points")
    p.add_argument("--method", required=True, choices=METHODS)
    p.add_argument("--components", type=int, default=50, help="K (default 50)")
    p.add_argument("--batch-size", type=int, default=0, help="incremental: batch_size (0: scikit-learn's default, 5·d)")
    p.add_argument("--out", help="write PREFIX.values and PREFIX.components")
    a = p.parse_args()
    if a.components < 1 or a.batch_size < 0:
        p.error("need --components >= 1 and --batch-size >= 0")

    from sklearn.decomposition import PCA, IncrementalPCA

    X = load(a.points)
    n, d = X.shape
    before = rss_mib("VmRSS")
    batch = None
    if a.method == "full":
        model = PCA(n_components=min(a.components + 1, n, d), svd_solver="full")
    elif a.method == "randomized":
        model = PCA(n_components=a.components, svd_solver="randomized", random_state=0)
    else:
        batch = a.batch_size or 5 * d  # IncrementalPCA's default batch_size
        model = IncrementalPCA(n_components=a.components, batch_size=batch)
    start = time.perf_counter()
    model.fit(X)
    seconds = time.perf_counter() - start
    peak = rss_mib("VmHWM")
    # IncrementalPCA.fit cuts the points into batches of batch_size, the last one merged
    # into the one before if it holds fewer than n_components (sklearn.utils.gen_batches).
    batches = None
    if batch is not None:
        batches = max(1, n // batch) if n % batch < a.components else -(-n // batch)
    out = {"method": a.method, "n": n, "d": d, "components": a.components, "batch_size": batch, "batches": batches,
           "seconds": seconds, "rss_before_mib": before, "peak_rss_mib": peak, "numpy_dgemm_s": numpy_dgemm(d)}
    print(json.dumps(out), flush=True)
    if a.out:
        write_outputs(a.out, model.explained_variance_, model.components_)


if __name__ == "__main__":
    main()
