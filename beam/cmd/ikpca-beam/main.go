// Command ikpca-beam fits streaming kernel PCA (SKPCA) or Nyström kernel PCA on Apache
// Beam, and projects points with a fitted model — an SKPCA or Nyström encoding, or a
// kpca checkpoint written by `ikpca fit` — from text files to score files. It runs on
// any Beam runner: locally on prism (the default) with one command, on Flink, Spark or
// Dataflow with the runner's flags (README.md).
//
//	ikpca-beam --mode=fit --input='data/*.csv' --model=model.skpca
//	ikpca-beam --mode=fit --input='data/*.csv' --model=model.skpca --output=scores
//	ikpca-beam --mode=fit --method=nystrom --landmarks=200 --input='data/*.csv' --model=model.nys
//	ikpca-beam --mode=fit --method=nystrom --landmarks-file=l.csv --input='data/*.csv' --model=model.nys
//	ikpca-beam --mode=project --input='data/*.csv' --model=model.skpca --output=scores
//	ikpca-beam --mode=polish --input='data/*.csv' --k=10 --rank=50 --passes=6 --certificate=cert.json --output=scores
//	ikpca-beam --mode=polish --start=model.nys --input='data/*.csv' --k=10 --rank=50 --passes=3 --certificate=cert.json --output=scores
//
// Polish computes the leading kernel principal components of all the points to batch
// accuracy, without their kernel matrix in memory anywhere, and certifies them: the
// block Krylov–Ritz iteration of kpca.FitFrom from a random start, or from the
// subspace of a --start model, over --shards shards of the points on the workers
// (ikpcabeam.Polish, PolishFrom). Its certificate file holds the
// values, intervals that hold the true eigenvalues, and bounds on the error of the
// --rank Ritz pairs; its scores are the points' on the --k leading components.
//
// Nyström KPCA takes its landmarks from a file (the input's format) or samples them
// uniformly from the points in the pipeline's first stage (seeded by --seed); without
// --sigma its RBF bandwidth is the median distance between the landmarks.
//
// Scores are CSV lines "file,offset,line,score₁,…,score_k", one per point, in no
// particular order (a point's file and byte offset are its key), in the files
// <output>-SSSSS-of-NNNNN.csv: one per bundle, written where the scores are computed,
// and named when all are written (ikpcabeam.WriteScores; one empty file for no scores).
// Lines that are not points and points the model refuses go, as CSV lines
// "file,offset,line,reason,record", to the dead-letter files <dead>-SSSSS-of-NNNNN.csv,
// by default <output>.dead-… (or <model>.dead-… when fit has no --output).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
)

// options are the command's flags.
type options struct {
	mode, method, input, format, sep string
	columns, landmarksFile           string
	landmarks                        int
	header                           bool
	dim                              int
	model, output, dead              string
	features, sketch                 int
	sigma                            float64
	seed                             uint64
	k, block                         int
	maxDead                          float64
	limitDead                        bool // maxDead applies (the flag's default, 0.1, or its value)
	// polish
	certificate, work, start string
	rank, passes, shards     int
	uncentred, deterministic bool
}

func main() {
	var o options
	flag.StringVar(&o.mode, "mode", "", "fit (and project the input with --output), project (with --model) or polish (batch-accurate kernel PCA of the input, certified, with --certificate and --output)")
	flag.StringVar(&o.method, "method", "skpca", "fit: skpca (random Fourier features sketched by Frequent Directions) or nystrom (Nyström kernel PCA)")
	flag.IntVar(&o.landmarks, "landmarks", 0, "fit, nystrom: sample this many landmarks from the points (uniformly, seeded by --seed)")
	flag.StringVar(&o.landmarksFile, "landmarks-file", "", "fit, nystrom: the landmarks, one per line in the input's format (--format, --sep, --header, --columns)")
	flag.StringVar(&o.input, "input", "", "input files, a glob of any file system Beam knows (local, gs://)")
	flag.StringVar(&o.format, "format", "csv", "input format: csv (delimited numbers) or libsvm")
	flag.StringVar(&o.sep, "sep", ",", `csv field separator: one character, "tab", or "space" (runs of blanks)`)
	flag.BoolVar(&o.header, "header", false, "csv: skip the first line of every file")
	flag.StringVar(&o.columns, "columns", "", `csv: the columns that are coordinates, 1-based, e.g. "1-10" or "2,4,6-9" (default all)`)
	flag.IntVar(&o.dim, "dim", 0, "dimension of the points (default: csv, from the first line of the first file; libsvm: required)")
	flag.StringVar(&o.model, "model", "", "the model file: written by fit, read by project; polish writes the polished model there if set (a kpca checkpoint `ikpca` reads, built on one worker: for points that fit in one process)")
	flag.StringVar(&o.output, "output", "", "scores: the prefix of the files <output>-SSSSS-of-NNNNN.csv, one per bundle (project; fit projects its input too if set)")
	flag.StringVar(&o.dead, "dead", "", "dead letters: the prefix of the files <dead>-SSSSS-of-NNNNN.csv (default: <output>.dead, or <model>.dead without --output)")
	flag.IntVar(&o.features, "features", 1000, "fit, skpca: random Fourier features D (even)")
	flag.IntVar(&o.sketch, "sketch", 50, "fit, skpca: sketch rows ℓ, the number of components")
	flag.Float64Var(&o.sigma, "sigma", 0, "fit: RBF bandwidth σ (default: skpca, the median distance of up to 1000 points of the first file; nystrom, the median distance between up to 1000 landmarks)")
	flag.Uint64Var(&o.seed, "seed", 1, "fit: seed of the random features (skpca) or of the landmarks' sample (nystrom)")
	flag.IntVar(&o.k, "k", 0, "project: components to score (default all)")
	flag.IntVar(&o.block, "block", 256, "points per AddBatch call (fit) and per Transform call (project)")
	flag.Float64Var(&o.maxDead, "max-dead-fraction", 0.1, "fail the job when more than this fraction of the input's records are dead letters (they are written first); 1: no limit")
	flag.StringVar(&o.certificate, "certificate", "", "polish: the certificate file (JSON): the values, intervals that hold the eigenvalues, the error bounds")
	flag.StringVar(&o.start, "start", "", "polish: a model file (an `ikpca fit` checkpoint, a Nyström model, an SKPCA) whose scores of the points start the iteration, in place of random vectors: fewer passes for the same accuracy")
	flag.StringVar(&o.work, "work", "", "polish: a directory for the shards' point files, removed after the run (default <certificate>.work)")
	flag.IntVar(&o.rank, "rank", 50, "polish: the width of the Krylov blocks, the Ritz pairs the certificate covers (≥ --k)")
	flag.IntVar(&o.passes, "passes", 6, "polish: passes over the points (1 to 16)")
	flag.IntVar(&o.shards, "shards", 8, "polish: shards of the points; the kernel matrix has shards·(shards+1)/2 tiles")
	flag.BoolVar(&o.uncentred, "uncentred", false, "polish: the kernel matrix K rather than the centred K′")
	flag.BoolVar(&o.deterministic, "deterministic", false, "polish: no random bound on the rest of the spectrum (two passes of 30 test vectors fewer): a certificate that holds on every input, but certifies no gap where the spectrum decays slowly")
	flag.Parse()
	o.limitDead = true
	// beam.Init after the flags: on a worker it runs the worker harness and exits.
	beam.Init()
	if err := run(context.Background(), o, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "ikpca-beam:", err)
		os.Exit(1)
	}
}
