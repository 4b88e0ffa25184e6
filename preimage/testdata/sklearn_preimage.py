#!/usr/bin/python3
"""Reference pre-images from scikit-learn's KernelPCA(fit_inverse_transform=True).

Run from the repository root with Debian's scikit-learn 1.2.1:

    /usr/bin/python3 preimage/testdata/sklearn_preimage.py

It writes preimage/testdata/<case>_<what>.csv.gz, each a matrix of float64 written
with 17 significant digits (exact round trip), one row a line, comma-separated:

  magic:   the first 350 rows of data/magic04.data, standardised with the mean and the
           population standard deviation of the first 300 (X: 350×10); KernelPCA(rbf,
           gamma=0.1, n_components=5, alpha=1.0, eigen_solver="dense") fitted on the
           first 300;
  magica:  the same points, alpha=1e-3 (a ridge that amplifies the scores' rounding);
  fashion: the first 220 images of data/fashion-t10k-1000-images-idx3-ubyte.gz (pixels
           divided by 255, as data.FashionMNISTSample reads them), KernelPCA(rbf,
           gamma=1e-3, n_components=20, alpha=5e-3, eigen_solver="dense") fitted on the
           first 200 (X is not written: the Go tests read the embedded sample).

For each case: scores (fit_transform, n×k), new (transform of the points after the
training ones), inv_train (inverse_transform of the training scores; fashion: of the
first 20), inv_new (inverse_transform of new), dual (dual_coef_; not for fashion, to keep
the files small). eigen_solver="dense" is what "auto"
picks for these sizes but for magic's n > 200 with k < 10 (arpack): dense is exact,
arpack iterative, and ikpca's fits are exact.
"""
import gzip
import os

import numpy as np
import sklearn
from sklearn.decomposition import KernelPCA

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def write(case, what, a):
    a = np.atleast_2d(np.asarray(a, dtype=np.float64))
    with gzip.open(os.path.join(HERE, f"{case}_{what}.csv.gz"), "wt", compresslevel=9) as f:
        for row in a:
            f.write(",".join(repr(float(v)) for v in row) + "\n")


def magic():
    rows = []
    with open(os.path.join(ROOT, "data", "magic04.data")) as f:
        for line in f:
            rows.append([float(v) for v in line.strip().split(",")[:10]])
            if len(rows) == 350:
                break
    X = np.array(rows)
    mu, sd = X[:300].mean(axis=0), X[:300].std(axis=0)
    return (X - mu) / sd


def fashion(n):
    with gzip.open(os.path.join(ROOT, "data", "fashion-t10k-1000-images-idx3-ubyte.gz"), "rb") as f:
        raw = f.read()
    assert int.from_bytes(raw[:4], "big") == 0x803
    pix = np.frombuffer(raw[16:16 + n * 784], dtype=np.uint8).reshape(n, 784)
    return pix.astype(np.float64) / 255.0


def case(name, X, m, gamma, k, alpha, write_x, rows=None):
    kp = KernelPCA(n_components=k, kernel="rbf", gamma=gamma, alpha=alpha,
                   fit_inverse_transform=True, eigen_solver="dense")
    S = kp.fit_transform(X[:m])
    new = kp.transform(X[m:])
    if write_x:
        write(name, "X", X)
    write(name, "scores", S)
    write(name, "new", new)
    write(name, "inv_train", kp.inverse_transform(S[:rows]))
    write(name, "inv_new", kp.inverse_transform(new))
    if rows is None:
        write(name, "dual", kp.dual_coef_)


def main():
    print("scikit-learn", sklearn.__version__)
    X = magic()
    case("magic", X, 300, 0.1, 5, 1.0, True)
    case("magica", X, 300, 0.1, 5, 1e-3, False)
    case("fashion", fashion(220), 200, 1e-3, 20, 5e-3, False, rows=20)


if __name__ == "__main__":
    main()
