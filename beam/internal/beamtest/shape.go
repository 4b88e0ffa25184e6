package beamtest

import (
	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/runtime/graphx"
	pipepb "github.com/apache/beam/sdks/v2/go/pkg/beam/model/pipeline_v1"
	"google.golang.org/protobuf/proto"
)

// Proto returns p's pipeline proto, as a launcher sends it to a runner.
func Proto(p *beam.Pipeline) (*pipepb.Pipeline, error) {
	edges, _, err := p.Build()
	if err != nil {
		return nil, err
	}
	return graphx.Marshal(edges, &graphx.Options{Environment: &pipepb.Environment{}})
}

// SplittableReads returns the IDs of the pipeline's splittable DoFns: the leaf ParDos
// whose payload names a restriction coder — how a runner knows them, whatever their
// Go types.
func SplittableReads(pb *pipepb.Pipeline) []string {
	var ids []string
	for id, t := range pb.GetComponents().GetTransforms() {
		if len(t.GetSubtransforms()) > 0 || t.GetSpec().GetUrn() != "beam:transform:pardo:v1" {
			continue
		}
		var pd pipepb.ParDoPayload
		if err := proto.Unmarshal(t.GetSpec().GetPayload(), &pd); err != nil {
			continue
		}
		if pd.GetRestrictionCoderId() != "" {
			ids = append(ids, id)
		}
	}
	return ids
}

// UngroupedPath returns a chain of leaf transforms, from an impulse to the transform
// id, along main inputs, that passes through no GroupByKey — the elements of such a
// chain can all stay in the task that ran the impulse, on a runner that fuses and does
// not split dynamically — or nil if every chain to id passes through one (a Reshuffle,
// a GroupByKey, a Combine: each redistributes its elements by key).
func UngroupedPath(pb *pipepb.Pipeline, id string) []string {
	transforms := pb.GetComponents().GetTransforms()
	producer := map[string]string{}
	for tid, t := range transforms {
		if len(t.GetSubtransforms()) > 0 {
			continue
		}
		for _, pc := range t.GetOutputs() {
			producer[pc] = tid
		}
	}
	seen := map[string]bool{}
	var walk func(tid string) []string
	walk = func(tid string) []string {
		if seen[tid] {
			return nil
		}
		seen[tid] = true
		t := transforms[tid]
		switch t.GetSpec().GetUrn() {
		case "beam:transform:group_by_key:v1", "beam:transform:reshuffle:v1":
			return nil
		case "beam:transform:impulse:v1":
			return []string{t.GetUniqueName()}
		}
		side := map[string]bool{}
		if t.GetSpec().GetUrn() == "beam:transform:pardo:v1" {
			var pd pipepb.ParDoPayload
			if proto.Unmarshal(t.GetSpec().GetPayload(), &pd) == nil {
				for local := range pd.GetSideInputs() {
					side[local] = true
				}
			}
		}
		for local, pc := range t.GetInputs() {
			if side[local] {
				continue
			}
			if up, ok := producer[pc]; ok {
				if path := walk(up); path != nil {
					return append(path, t.GetUniqueName())
				}
			}
		}
		return nil
	}
	return walk(id)
}
