package beamtest

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/runtime/graphx"
	pipepb "github.com/apache/beam/sdks/v2/go/pkg/beam/model/pipeline_v1"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
)

// The volume of a pipeline's groupings: how many elements, and how many bytes, enter
// each transform that gathers elements by key — what a runner that does not lift
// combiners (portable Flink and Spark) holds on one key — measured on a real run.
//
// How: the pipeline runs on prism (ptest.RunWithMetrics), whose SDK harness counts the
// elements of every PCollection and samples their encoded sizes (the portable metrics
// beam:metric:element_count:v1 and beam:metric:sampled_byte_size:v1); the pipeline's
// proto, marshalled as the runner receives it, names the PCollection that enters each
// grouping. Nothing is inserted in the pipeline, so what is measured is the pipeline as
// it is shipped, with its fusion and its stages — a counting ParDo before each grouping
// would break the fusion it measures and could not be inserted after construction
// without rebuilding the graph. Two limits, both of the runner's metrics: a
// PCollection that crosses from one fused stage to another is counted by both, so an
// element count is at most twice the number of elements; and sizes are sampled (every
// element of a bundle's first few, then about one in ten), so Bytes is an estimate, the
// mean sampled size times the elements, exact when every element was sampled.

// The URNs of the transforms that gather elements: a GroupByKey (also the heart of a
// CoGroupByKey, which the Go SDK marshals as a Flatten and a GroupByKey), a Combine,
// and a Reshuffle.
var groupingURNs = map[string]string{
	"beam:transform:group_by_key:v1":     "GroupByKey",
	"beam:transform:combine_per_key:v1":  "Combine",
	"beam:transform:combine_globally:v1": "Combine",
	"beam:transform:reshuffle:v1":        "Reshuffle",
}

// Grouping is what entered one grouping transform on a run.
type Grouping struct {
	// Name is the transform's unique name (its scopes, then its own), Kind one of
	// "GroupByKey", "Combine" and "Reshuffle".
	Name, Kind string
	// PCollection is the ID of the PCollection that enters it.
	PCollection string
	// Elements is the runner's count of its elements (at most twice their number,
	// above), Bytes the estimate of their encoded size.
	Elements, Bytes int64
}

// String is the grouping as a line of a report.
func (g Grouping) String() string {
	return fmt.Sprintf("%-9s %-60s %10d elements %12d bytes", g.Kind, g.Name, g.Elements, g.Bytes)
}

// Volumes runs p on ptest's runner, prism, and returns what entered each of its
// groupings — the outermost one where groupings nest (a Combine's GroupByKey) — in the
// order of their names, and the run's result. A grouping whose input no metric names
// has zero elements: the runner saw none.
func Volumes(p *beam.Pipeline) ([]Grouping, beam.PipelineResult, error) {
	edges, _, err := p.Build()
	if err != nil {
		return nil, nil, err
	}
	pb, err := graphx.Marshal(edges, &graphx.Options{Environment: &pipepb.Environment{}})
	if err != nil {
		return nil, nil, err
	}
	res, err := ptest.RunWithMetrics(p)
	if err != nil {
		return nil, res, err
	}
	transforms := pb.GetComponents().GetTransforms()
	// The SDK reports a PCollection's metrics under "<producer's unique name>.<output's
	// local name>", of any transform that outputs it (a composite or the leaf inside):
	// every such name leads back to the PCollection.
	byName := map[string]string{}
	parent := map[string]string{}
	for id, t := range transforms {
		for local, pc := range t.GetOutputs() {
			byName[t.GetUniqueName()+"."+local] = pc
		}
		for _, sub := range t.GetSubtransforms() {
			parent[sub] = id
		}
	}
	type volume struct{ elements, sampled, sum int64 }
	vols := map[string]*volume{}
	for _, r := range res.Metrics().AllMetrics().PCols() {
		pc, ok := byName[r.Transform()]
		if !ok {
			continue // a PCollection the runner made (a lifted combine's)
		}
		v := vols[pc]
		if v == nil {
			v = &volume{}
			vols[pc] = v
		}
		val := r.Result()
		v.elements += val.ElementCount
		v.sampled += val.SampledByteSize.Count
		v.sum += val.SampledByteSize.Sum
	}
	var out []Grouping
	for id, t := range transforms {
		kind, ok := groupingURNs[t.GetSpec().GetUrn()]
		if !ok || nested(id, parent, transforms) {
			continue
		}
		for _, pc := range t.GetInputs() {
			g := Grouping{Name: t.GetUniqueName(), Kind: kind, PCollection: pc}
			// A CoGroupByKey's GroupByKey reads a Flatten of its inputs, which prism
			// fuses away without metrics: its volume is the sum of the Flatten's inputs'.
			ins := []string{pc}
			if vols[pc] == nil {
				ins = flattenInputs(pc, transforms)
			}
			for _, in := range ins {
				if v := vols[in]; v != nil {
					g.Elements += v.elements
					if v.sampled > 0 {
						g.Bytes += v.sum * v.elements / v.sampled
					}
				}
			}
			out = append(out, g)
		}
	}
	slices.SortFunc(out, func(a, b Grouping) int { return strings.Compare(a.Name, b.Name) })
	return out, res, nil
}

// nested reports a transform inside a grouping transform.
func nested(id string, parent map[string]string, transforms map[string]*pipepb.PTransform) bool {
	for up, ok := parent[id]; ok; up, ok = parent[up] {
		if _, grouping := groupingURNs[transforms[up].GetSpec().GetUrn()]; grouping {
			return true
		}
	}
	return false
}

// flattenInputs returns the PCollections whose elements make up pc: the inputs of the
// Flatten that produces pc, or pc where no Flatten does.
func flattenInputs(pc string, transforms map[string]*pipepb.PTransform) []string {
	for _, t := range transforms {
		if t.GetSpec().GetUrn() != "beam:transform:flatten:v1" {
			continue
		}
		for _, out := range t.GetOutputs() {
			if out == pc {
				return slices.Collect(maps.Values(t.GetInputs()))
			}
		}
	}
	return []string{pc}
}
