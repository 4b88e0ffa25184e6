// Package beamtest holds what the Beam module's tests of several packages share.
package beamtest

import (
	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/runtime/graphx"
	pipepb "github.com/apache/beam/sdks/v2/go/pkg/beam/model/pipeline_v1"
	"google.golang.org/protobuf/proto"
)

// GraphSize returns the size in bytes of p's serialised pipeline, as a launcher sends
// it to a runner (graphx.Marshal, the portable pipeline proto): what Dataflow's limits
// on graph and job request size (10 MB and 20 MB) apply to.
func GraphSize(p *beam.Pipeline) (int, error) {
	edges, _, err := p.Build()
	if err != nil {
		return 0, err
	}
	pb, err := graphx.Marshal(edges, &graphx.Options{Environment: &pipepb.Environment{}})
	if err != nil {
		return 0, err
	}
	return proto.Size(pb), nil
}
