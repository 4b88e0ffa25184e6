#!/usr/bin/python3
"""scikit-learn's KernelPCA fitted once on a file of points: the yardstick of ikpca's rank-r tracking.

Reads the points from a CSV file without a header (one point per row, as
`go run ./bench/points` and the study `ikpca tracking` write them), fits
KernelPCA(n_components=K, kernel="rbf", gamma=1/(2 sigma^2), eigen_solver=SOLVER)
on all of them, once per solver, each fit in a child process of its own so that
its peak resident memory is its own, and prints a CSV on stdout:

    method,n,d,solver,components,seconds,rss_before_mib,peak_rss_mib,lambda1,...,lambdaK

seconds is the wall time of KernelPCA.fit alone; rss_before_mib the resident memory
after the points are loaded, before the fit; peak_rss_mib the process's peak (VmHWM)
after it; lambda1...lambdaK the top K eigenvalues of the centred kernel matrix
(KernelPCA.eigenvalues_, not divided by n: the quantities ikpca's Values reports).

On all 19,020 MAGIC points the dense solver takes about 10 minutes and 8.4 GiB, arpack
17 s and 5.7 GiB (50 components). Run with Debian's python3-sklearn (1.2.1):

    go run ./bench/points -dataset magic -n 2000 -o /tmp/magic.csv    # prints sigma
    /usr/bin/python3 bench/sklearn_fit.py --points /tmp/magic.csv --sigma SIGMA --solvers dense,arpack
"""

import argparse
import os
import subprocess
import sys
import time

SOLVERS = ("dense", "arpack")


def rss_mib(field):
    """VmRSS or VmHWM of this process, in MiB."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return float("nan")


def fit(path, gamma, solver, components):
    """Fits one model and prints its CSV row."""
    import numpy as np
    from sklearn.decomposition import KernelPCA

    X = np.loadtxt(path, delimiter=",", ndmin=2)
    before = rss_mib("VmRSS")
    model = KernelPCA(n_components=components, kernel="rbf", gamma=gamma, eigen_solver=solver, random_state=0)
    start = time.perf_counter()
    model.fit(X)
    seconds = time.perf_counter() - start
    peak = rss_mib("VmHWM")
    values = model.eigenvalues_
    if len(values) < components:
        sys.exit(f"{solver}: {len(values)} eigenvalues, want {components}")
    cells = ["sklearn-kernelpca", str(X.shape[0]), str(X.shape[1]), solver, str(components), f"{seconds:.6g}",
             f"{before:.1f}", f"{peak:.1f}"] + [repr(float(v)) for v in values[:components]]
    print(",".join(cells), flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--points", required=True, help="CSV file of the points, no header")
    p.add_argument("--sigma", type=float, help="RBF bandwidth sigma: gamma = 1/(2 sigma^2)")
    p.add_argument("--gamma", type=float, help="scikit-learn's gamma, instead of --sigma")
    p.add_argument("--components", type=int, default=10, help="n_components (default 10)")
    p.add_argument("--solvers", default=",".join(SOLVERS), help="comma-separated: dense, arpack")
    p.add_argument("--one", action="store_true",
                   help="fit in this process, without a header (for a caller that measures the process itself)")
    a = p.parse_args()
    if (a.sigma is None) == (a.gamma is None):
        p.error("give --sigma or --gamma")
    gamma = a.gamma if a.gamma is not None else 1 / (2 * a.sigma * a.sigma)
    if not gamma > 0 or a.components < 1:
        p.error("need a positive bandwidth and --components >= 1")
    solvers = a.solvers.split(",")
    for s in solvers:
        if s not in SOLVERS:
            p.error(f"unknown solver {s!r} (want one of {', '.join(SOLVERS)})")
    if a.one:
        for s in solvers:
            fit(a.points, gamma, s, a.components)
        return
    header = "method,n,d,solver,components,seconds,rss_before_mib,peak_rss_mib,"
    print(header + ",".join(f"lambda{j}" for j in range(1, a.components + 1)), flush=True)
    for s in solvers:
        # A child per fit: its peak resident memory is its own.
        subprocess.run([sys.executable, os.path.abspath(__file__), "--points", a.points, "--gamma", repr(gamma),
                        "--components", str(a.components), "--solvers", s, "--one"], check=True)


if __name__ == "__main__":
    main()
