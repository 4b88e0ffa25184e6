#!/usr/bin/python3
"""Reference values of scikit-learn's sigmoid and cosine kernels for kernel's tests
(TestScikitLearnKernels).

Run once from this directory with Debian's python3-sklearn:

    /usr/bin/python3 sklearn_kernels.py

It writes sklearn_kernels.json: sklearn.metrics.pairwise.sigmoid_kernel(X, X, gamma,
coef0) for three (gamma, coef0) pairs and cosine_similarity(X, X) of the six points X
below (d = 5), one of which is the zero vector (scikit-learn's normalize leaves it zero,
so its cosine with every point, itself included, is 0), one a multiple of another and
one with coordinates of very different sizes. The values are printed with repr, which
round-trips float64 exactly.
"""
import json

import numpy as np
import sklearn
from sklearn.metrics.pairwise import cosine_similarity, sigmoid_kernel

X = np.array([
    [1.0, 2.0, 3.0, -1.0, 0.5],
    [0.0, 0.0, 0.0, 0.0, 0.0],
    [-0.3, 0.7, 0.1, 2.5, -1.2],
    [2.0, 4.0, 6.0, -2.0, 1.0],
    [1e-3, -4.0, 1e3, 0.25, 7.0],
    [0.6, -0.2, -0.9, 0.4, 0.05],
])
params = [(0.1, 1.0), (0.5, -0.3), (2.0, 0.0)]
out = {
    "sklearn": sklearn.__version__,
    "x": X.tolist(),
    "sigmoid": [
        {"gamma": g, "coef0": c, "k": sigmoid_kernel(X, X, gamma=g, coef0=c).tolist()}
        for g, c in params
    ],
    "cosine": cosine_similarity(X, X).tolist(),
}
with open("sklearn_kernels.json", "w") as f:
    json.dump(out, f, indent=1)
    f.write("\n")
