#!/usr/bin/python3
"""Reference values of scikit-learn's PCA for pca's tests (TestScikitLearn).

Run once from this directory with Debian's python3-sklearn:

    /usr/bin/python3 sklearn_pca.py

It reads the first 500 rows of MAGIC from the module's data/magic04.data (the
file data.Magic() parses; the class label in the last column dropped) and writes sklearn_pca.json: PCA(n_components=5,
svd_solver="full").fit(X) — explained_variance_, explained_variance_ratio_,
components_ (rows; their signs are scikit-learn's, svd_flip on U in 1.2), mean_ —
transform of the first 20 rows, and inverse_transform of those scores.
"""
import json

import numpy as np
import sklearn
from sklearn.decomposition import PCA

X = np.loadtxt("../../data/magic04.data", delimiter=",", usecols=range(10), max_rows=500)
pca = PCA(n_components=5, svd_solver="full").fit(X)
out = {
    "sklearn": sklearn.__version__,
    "components": 5,
    "explained_variance": pca.explained_variance_.tolist(),
    "explained_variance_ratio": pca.explained_variance_ratio_.tolist(),
    "components_": pca.components_.tolist(),
    "mean": pca.mean_.tolist(),
    "transform": pca.transform(X[:20]).tolist(),
    "inverse_transform": pca.inverse_transform(pca.transform(X[:20])).tolist(),
}
with open("sklearn_pca.json", "w") as f:
    json.dump(out, f, indent=1)
    f.write("\n")
