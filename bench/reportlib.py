"""What the report scripts of bench/ share (certified_report.py, pca_report.py): the
formatting of values and verdicts, and a run directory's results.csv — one line per
process, name, points, wall seconds, max RSS MiB, exit status; runs with the same
directory add to it, and a name's last line counts."""

import csv
import os


def fmt(v, spec=".3g"):
    """v formatted, or a dash for a missing value; a string as it is."""
    if v is None:
        return "–"
    if isinstance(v, str):
        return v
    return format(v, spec)


def verdict(ok):
    return "**PASS**" if ok else "**FAIL**"


class Runs:
    """A run directory: its processes' results, and the targets checked against them."""

    def __init__(self, a):
        """a: the parsed arguments, a.dir the directory."""
        self.a = a
        self.dir = a.dir
        self.runs = {}
        path = self.path("results.csv")
        if os.path.exists(path):
            for name, points, wall, rss, status in csv.reader(open(path)):
                self.runs[name] = {"points": int(points), "wall": float(wall), "rss": float(rss), "status": int(status)}
        self.targets = []

    def path(self, name):
        return os.path.join(self.dir, name)

    def target(self, what, value, limit, spec=".3g"):
        """Records a target, value ≤ limit, with its verdict, and returns whether it is met."""
        ok = value is not None and value <= limit
        self.targets.append(f"- {what}: {fmt(value, spec)} (target ≤ {limit:g}) {verdict(ok)}")
        return ok

    def flush_targets(self):
        if self.targets:
            print("Targets:\n")
            print("\n".join(self.targets))
            print()
        self.targets = []
