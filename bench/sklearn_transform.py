#!/usr/bin/python3
"""Projection throughput of scikit-learn, the yardstick of ikpca's bulk Transform.

Measures, on MAGIC (data/magic04.data, d = 10) and a9a (data/a9a.gz, d = 123):

  - KernelPCA(kernel="rbf").transform, fitted on the first m rows;
  - Nystroem(kernel="rbf", n_components=m) followed by PCA, fitted on the first m rows,
    transform of both;

projecting the n rows after the first m (wrapping around the data if there are fewer),
k = 6 components, RBF bandwidth sigma the median distance between the first
min(m, 1000) rows (gamma = 1/(2 sigma^2)), exactly as the Go counterpart does
(go run ./bench/transform). Each measurement runs in a child process of its own, so
that its peak resident memory (VmHWM, which includes the data and the fitted model) is
its own; the time is the best of -reps transforms.

It prints a CSV on stdout:

    method,n,d,m,points_per_s,seconds,peak_rss_mib

and the BLAS numpy uses on stderr. Run with Debian's python3-sklearn (1.2.1):

    /usr/bin/python3 bench/sklearn_transform.py                 # n = 10000, m = 1000
    /usr/bin/python3 bench/sklearn_transform.py -n 200 -m 50    # a quick check

and beside it, in the same session, go run -tags openblas ./bench/transform with the
same -n and -m.
"""

import argparse
import gzip
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "data")
COMPONENTS = 6
METHODS = ("sklearn-kernelpca-transform", "sklearn-nystroem-pca-transform")
DATASETS = ("magic", "a9a")


def load(name):
    """Returns the data set as a dense float64 array, as package data parses it."""
    import numpy as np

    if name == "magic":
        # 10 features and a class letter per line.
        return np.loadtxt(os.path.join(DATA, "magic04.data"), delimiter=",", usecols=range(10))
    if name == "a9a":
        from sklearn.datasets import load_svmlight_file

        with gzip.open(os.path.join(DATA, "a9a.gz"), "rb") as f:
            X, _ = load_svmlight_file(f, n_features=123)
        return np.asarray(X.todense(), dtype=np.float64)
    raise ValueError(name)


def split(X, m, n):
    """The first m rows to fit, the n following rows (wrapping around) to project."""
    import numpy as np

    rows = X.shape[0]
    idx = (m + np.arange(n)) % rows
    return X[:m], X[idx]


def median_sigma(train):
    """The median distance between the first min(m, 1000) rows (kernel.MedianDistance)."""
    import numpy as np
    from scipy.spatial.distance import pdist

    return float(np.median(pdist(train[:1000])))


def peak_rss_mib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def measure(method, dataset, n, m, reps):
    """Runs one measurement and prints its CSV row."""
    from sklearn.decomposition import PCA, KernelPCA
    from sklearn.kernel_approximation import Nystroem

    X = load(dataset)
    train, test = split(X, m, n)
    sigma = median_sigma(train)
    gamma = 1 / (2 * sigma * sigma)
    if method == "sklearn-kernelpca-transform":
        model = KernelPCA(n_components=COMPONENTS, kernel="rbf", gamma=gamma, eigen_solver="dense")
        model.fit(train)
        project = model.transform
    elif method == "sklearn-nystroem-pca-transform":
        ny = Nystroem(kernel="rbf", gamma=gamma, n_components=m, random_state=0)
        pca = PCA(n_components=COMPONENTS)
        pca.fit(ny.fit_transform(train))

        def project(Z):
            return pca.transform(ny.transform(Z))

    else:
        raise ValueError(method)
    best = float("inf")
    for _ in range(reps):
        start = time.perf_counter()
        scores = project(test)
        best = min(best, time.perf_counter() - start)
    assert scores.shape == (n, COMPONENTS)
    print(f"{method},{n},{X.shape[1]},{m},{n / best:.6g},{best:.6g},{peak_rss_mib():.1f}", flush=True)


def blas_info():
    try:
        import numpy  # noqa: F401 (threadpoolctl sees only loaded libraries)
        from threadpoolctl import threadpool_info

        return "; ".join(f"{i.get('internal_api')} {i.get('version')} ({i.get('num_threads')} threads)"
                         for i in threadpool_info())
    except Exception as e:  # threadpoolctl missing or failing: say so, do not fail
        return f"unknown ({e})"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("-n", type=int, default=10000, help="points to project")
    p.add_argument("-m", type=int, default=1000, help="points to fit on (landmarks, features)")
    p.add_argument("-reps", type=int, default=3, help="transforms timed; the best is reported")
    p.add_argument("-datasets", default=",".join(DATASETS), help="comma-separated: magic, a9a")
    p.add_argument("-methods", default=",".join(METHODS), help="comma-separated subset of " + ", ".join(METHODS))
    p.add_argument("-one", nargs=2, metavar=("METHOD", "DATASET"), help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.n < 1 or a.m < COMPONENTS or a.reps < 1:
        p.error(f"need n >= 1, m >= {COMPONENTS}, reps >= 1")
    if a.one:
        measure(a.one[0], a.one[1], a.n, a.m, a.reps)
        return
    print(f"numpy BLAS: {blas_info()}", file=sys.stderr)
    print("method,n,d,m,points_per_s,seconds,peak_rss_mib", flush=True)
    for dataset in a.datasets.split(","):
        for method in a.methods.split(","):
            if method not in METHODS or dataset not in DATASETS:
                p.error(f"unknown method {method!r} or data set {dataset!r}")
            # A child per measurement: its peak RSS is its own.
            subprocess.run([sys.executable, __file__, "-n", str(a.n), "-m", str(a.m), "-reps", str(a.reps),
                            "-one", method, dataset], check=True)


if __name__ == "__main__":
    main()
