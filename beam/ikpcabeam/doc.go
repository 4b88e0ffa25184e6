// Package ikpcabeam runs ikpca's models on Apache Beam with the Beam Go SDK, so that a
// fit or a projection spreads over many workers (docs/design.md, "Beyond one machine").
//
// What spreads is what merges. A model that is a mergeable summary of its points (a
// Summary: SKPCA's Frequent Directions sketch of random Fourier features, the Nyström
// kernel PCA sums) is fitted in two steps: each bundle of points is folded into a
// partial model in a plain ParDo, and the partial models merge in two levels of
// Combine, so that no step groups the points, no key gathers every bundle's model, and
// every runner spreads the fit over its workers; the result is the model's encoding,
// one []byte. The readers redistribute their file ranges (a Reshuffle) before reading,
// so that a runner that neither splits dynamically nor lifts combiners still reads in
// parallel. Projection needs no merging: any fitted model — a Summary's encoding or a
// kpca checkpoint — is a side input, keyed by a digest side input, that each worker
// process fetches once and each DoFn instance decodes once, and points are projected in
// blocks.
//
// The pipeline's pieces, each a composite transform:
//
//   - ReadLines, ReadCSV, ReadLIBSVM (and ParseCSV, ParseLIBSVM for lines from
//     elsewhere): text files to Points, each with its file, byte offset and, where the
//     reader knows it, line number;
//   - FitSKPCA, FitNystrom, FitNystromSampled: Points to an encoded model;
//   - Project: Points and an encoded model to Scores;
//   - Polish, PolishFrom: Points (and, for PolishFrom, a model whose subspace starts
//     the iteration) to the top Ritz pairs of all of them, at batch accuracy, with a
//     certificate, their Scores and optionally the polished kpca model — kpca.FitFrom's
//     passes as tiles of the kernel matrix over shards of the points (package sharded
//     has the mathematics);
//   - WriteScores, WriteDeadLetters: CSV lines in the files prefix-SSSSS-of-NNNNN.csv,
//     one per bundle, written where the lines are and published per run — a claim on
//     the prefix, renames spread over the workers, a manifest — so that a retried
//     bundle is written once and two runs to one prefix never mix (the dead letters
//     also counted by class, Beam counters "dead_letters_<class>" of the namespace
//     "ikpca");
//   - CheckRecords: fails a pipeline with too many dead letters, or no scores, after
//     writing a failure marker (FailureMarkerOption) that the launcher reads.
//
// The fits, Project and the writers refuse a PCollection in other windows than the
// global one.
//
// No bad record stops a pipeline: a line that is not a point (a field that is not a
// number, a NaN, a wrong number of fields), and a point a model cannot take (a wrong
// dimension, a non-finite kernel value), goes to a dead-letter PCollection as a
// DeadLetter that holds the record, where it came from and the reason. A bad
// configuration (impossible options, a model's bytes that do not decode) is an error at
// construction where it can be known then, and fails the pipeline otherwise.
package ikpcabeam
