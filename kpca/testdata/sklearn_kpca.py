#!/usr/bin/python3
"""Reference values of scikit-learn's KernelPCA for kpca's tests (TestScikitLearn).

Run once from this directory with Debian's python3-sklearn (1.2.1):

    /usr/bin/python3 sklearn_kpca.py

It writes sklearn_kpca.json: the points themselves — 40 training points and 6 new ones
of dimension 4, drawn once from a seeded generator and rounded to 4 decimals, so that
the Go test needs no random generator of its own — and, for each of four kernels,
KernelPCA(kernel, n_components=k, eigen_solver="dense") fitted on the training points,
centred (scikit-learn always centres), with k = 5 but for the cosine kernel, k = 4:

  eigenvalues  eigenvalues_, the top k of the centred kernel matrix K' = HKH;
  scores       fit_transform(X), the training scores U·Λ^½ (40×k);
  transform    transform(new) (6×k).

The cosine kernel is the linear kernel of the points scaled to unit length, so its
centred matrix has rank 4 at most (d = 4): a fifth component would be a null one, of
no defined direction.

The kernels, in scikit-learn's parameters, which map one to one onto package kernel's:

  rbf      exp(−γ‖x−y‖²), γ = 0.5               kernel.RBF{Gamma: 0.5}
  poly     (γ·xᵀy + c)^3, γ = 0.5, c = 1        kernel.Polynomial{Degree: 3, Gamma: 0.5, Coef0: 1}
  sigmoid  tanh(γ·xᵀy + c), γ = 0.1, c = 0.5    kernel.Sigmoid{Gamma: 0.1, Coef0: 0.5}
  cosine   xᵀy/(‖x‖‖y‖)                         kernel.Cosine{}

eigen_solver="dense" computes the top k pairs exactly (scipy's eigh with an index
range); n_components=k also keeps scikit-learn from refusing the sigmoid kernel's
matrix, which is indefinite: it checks only the eigenvalues it computed, and the top 5
are positive. The eigenvectors are signed by scikit-learn's svd_flip, the rule of
docs/design.md, "Signs".

For each kernel the script checks, from the full spectrum of K' (numpy's eigh), that
the top k eigenvalues are positive and separated — each gap λⱼ − λⱼ₊₁, j = 1 … k,
at least 1e-3·λ₁ (λₖ₊₁ may be zero), so that the five components are well-conditioned and their order
is unambiguous — and that in every component the largest |entry| exceeds the next by
at least 1e-3 of it, so that the sign rule decides by a margin far above rounding (and
above ikpca's tie threshold, 1e-6). It records the smallest relative gap, from which
the Go test takes its tolerance, and how many eigenvalues of K' are below −1e-10·λ₁
(the sigmoid's indefiniteness).
"""
import json

import numpy as np
import sklearn
from sklearn.decomposition import KernelPCA
from sklearn.metrics.pairwise import pairwise_kernels

KERNELS = [
    ("rbf", 5, {"gamma": 0.5}),
    ("poly", 5, {"degree": 3, "gamma": 0.5, "coef0": 1.0}),
    ("sigmoid", 5, {"gamma": 0.1, "coef0": 0.5}),
    ("cosine", 4, {}),
]

rng = np.random.default_rng(20261129)
# Four coordinates of unequal spread, so that the spectra are not clustered.
scale = np.array([1.6, 1.0, 0.7, 0.4])
X = np.round(rng.standard_normal((40, 4)) * scale + 0.3, 4)
new = np.round(rng.standard_normal((6, 4)) * scale + 0.3, 4)

out = {
    "sklearn": sklearn.__version__,
    "X": X.tolist(),
    "new": new.tolist(),
    "kernels": [],
}
for name, k, params in KERNELS:
    kpca = KernelPCA(n_components=k, kernel=name, eigen_solver="dense", **params)
    scores = kpca.fit_transform(X)
    transform = kpca.transform(new)

    K = pairwise_kernels(X, metric=name, filter_params=True, **params)
    n = K.shape[0]
    H = np.eye(n) - np.ones((n, n)) / n
    w, U = np.linalg.eigh(H @ K @ H)
    w, U = w[::-1], U[:, ::-1]
    top = w[: k + 1]
    assert np.all(top[:k] > 0), (name, top)
    gaps = (top[:-1] - top[1:]) / top[0]
    assert gaps.min() >= 1e-3, (name, gaps)
    assert np.allclose(kpca.eigenvalues_, top[:k], rtol=1e-12, atol=0), name
    for j in range(k):
        a = np.sort(np.abs(kpca.eigenvectors_[:, j]))[::-1]
        assert a[0] - a[1] >= 1e-3 * a[0], (name, j, a[:2])
    out["kernels"].append({
        "kernel": name,
        "components": k,
        "params": params,
        "eigenvalues": kpca.eigenvalues_.tolist(),
        "scores": scores.tolist(),
        "transform": transform.tolist(),
        "min_gap": float(gaps.min()),
        "negative": int(np.sum(w < -1e-10 * w[0])),
    })
    print(f"{name}: λ = {np.array2string(top, precision=4)}, min relative gap {gaps.min():.3g}, "
          f"{out['kernels'][-1]['negative']} negative eigenvalues")

with open("sklearn_kpca.json", "w") as f:
    json.dump(out, f, indent=1)
    f.write("\n")
