#!/usr/bin/python3
"""scikit-learn's KernelPCA fitted once on a file of points: the yardstick of ikpca's rank-r tracking.

Reads the points from a CSV file without a header (one point per row, as
`go run ./bench/points` and the study `ikpca tracking` write them) or from an IDX file
of images, plain or gzip-compressed, recognised by its first bytes as `ikpca fit` does
(bytes divided by 255, one image a row: what `go run ./bench/points -dataset
fashion-mnist` writes), fits
KernelPCA(n_components=K, kernel="rbf", gamma=1/(2 sigma^2), eigen_solver=SOLVER)
on all of them, once per solver, each fit in a child process of its own so that
its peak resident memory is its own, and prints a CSV on stdout:

    method,n,d,solver,components,seconds,rss_before_mib,peak_rss_mib,lambda1,...,lambdaK

seconds is the wall time of KernelPCA.fit alone; rss_before_mib the resident memory
after the points are loaded, before the fit; peak_rss_mib the process's peak (VmHWM)
after it; lambda1...lambdaK the top K eigenvalues of the centred kernel matrix
(KernelPCA.eigenvalues_, not divided by n: the quantities ikpca's Values reports).

With --vectors FILE (one solver), it also writes the top K eigenvalues and unit
eigenvectors (KernelPCA.eigenvectors_, n×K, orthogonal to the constant vector) as the
reference file bench/certified reads: little-endian, the uint64 n and K, the K float64
eigenvalues, then the n×K float64 eigenvectors row by row. The file is written after the
peak memory is read, so that the row's numbers are the fit's.

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


def load(path):
    """The points of a CSV file, or of an IDX file of unsigned bytes (divided by 255)."""
    import gzip
    import numpy as np

    with open(path, "rb") as f:
        head = f.read(2)
    if head not in (b"\x00\x00", b"\x1f\x8b"):
        return np.loadtxt(path, delimiter=",", ndmin=2)
    with (gzip.open if head == b"\x1f\x8b" else open)(path, "rb") as f:
        raw = f.read()
    # The IDX header: two zero bytes, the element type (0x08: unsigned byte), the number
    # of dimensions, then each dimension as a big-endian 32-bit integer.
    if raw[2] != 0x08 or raw[3] < 1:
        sys.exit(f"{path}: not an IDX file of unsigned bytes")
    dims = [int.from_bytes(raw[4 + 4 * i:8 + 4 * i], "big") for i in range(raw[3])]
    start = 4 + 4 * len(dims)
    width = int(np.prod(dims[1:])) if len(dims) > 1 else 1
    if len(raw) != start + dims[0] * width:
        sys.exit(f"{path}: {len(raw) - start} bytes of data, the header says {dims[0] * width}")
    return np.frombuffer(raw, dtype=np.uint8, offset=start).reshape(dims[0], width) / 255.0


def write_reference(path, values, vectors):
    """Writes the reference file: uint64 n and k, k values, then the n×k vectors row by row."""
    import numpy as np

    n, k = vectors.shape
    with open(path, "wb") as f:
        np.array([n, k], dtype="<u8").tofile(f)
        np.ascontiguousarray(values, dtype="<f8").tofile(f)
        np.ascontiguousarray(vectors, dtype="<f8").tofile(f)


def fit(path, gamma, solver, components, vectors=None, keep=10):
    """Fits one model and prints its CSV row (and writes its top keep pairs to vectors)."""
    import numpy as np
    from sklearn.decomposition import KernelPCA

    X = load(path)
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
    if vectors:
        k = min(keep, components)
        # eigenvectors_ since scikit-learn 1.0, alphas_ before.
        V = getattr(model, "eigenvectors_", None)
        if V is None:
            V = model.alphas_
        write_reference(vectors, values[:k], V[:, :k])


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--points", required=True, help="CSV file of the points, no header")
    p.add_argument("--sigma", type=float, help="RBF bandwidth sigma: gamma = 1/(2 sigma^2)")
    p.add_argument("--gamma", type=float, help="scikit-learn's gamma, instead of --sigma")
    p.add_argument("--components", type=int, default=10, help="n_components (default 10)")
    p.add_argument("--solvers", default=",".join(SOLVERS), help="comma-separated: dense, arpack")
    p.add_argument("--vectors", help="with --one and one solver: write the top --keep eigenpairs to this reference file")
    p.add_argument("--keep", type=int, default=10, help="eigenpairs --vectors writes (default 10)")
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
    if a.vectors and (not a.one or len(solvers) != 1):
        p.error("--vectors needs --one and one solver")
    if a.one:
        for s in solvers:
            fit(a.points, gamma, s, a.components, a.vectors, a.keep)
        return
    header = "method,n,d,solver,components,seconds,rss_before_mib,peak_rss_mib,"
    print(header + ",".join(f"lambda{j}" for j in range(1, a.components + 1)), flush=True)
    for s in solvers:
        # A child per fit: its peak resident memory is its own.
        subprocess.run([sys.executable, os.path.abspath(__file__), "--points", a.points, "--gamma", repr(gamma),
                        "--components", str(a.components), "--solvers", s, "--one"], check=True)


if __name__ == "__main__":
    main()
