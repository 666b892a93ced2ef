package main

import (
	"reflect"
	"testing"

	"kgforge/pipelines"
)

// TestPartPipelineIsTheExampleOnFewerDocuments: testdata/example-part.yaml
// differs from pipelines/example.yaml only in its sources (fewer
// documents, the same tables), its output and Neo4j, so its chunks and
// model replies are the whole build's.
func TestPartPipelineIsTheExampleOnFewerDocuments(t *testing.T) {
	whole, err := pipelines.Load("../../pipelines/example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	part, err := pipelines.Load("testdata/example-part.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if whole.Resolve(whole.Root) != part.Resolve(part.Root) {
		t.Errorf("root %s; want %s", part.Resolve(part.Root), whole.Resolve(whole.Root))
	}
	for what, pair := range map[string][2]any{
		"chunking": {whole.Chunking, part.Chunking}, "llm": {whole.LLM, part.LLM}, "extract": {whole.Extract, part.Extract},
		"limits": {whole.Limits, part.Limits}, "link": {whole.Link, part.Link},
	} {
		if !reflect.DeepEqual(pair[0], pair[1]) {
			t.Errorf("%s differs: %+v; want %+v", what, pair[1], pair[0])
		}
	}
	wr, pr := whole.Resolution, part.Resolution
	wr.Overrides, pr.Overrides = whole.Resolve(wr.Overrides), part.Resolve(pr.Overrides)
	if !reflect.DeepEqual(wr, pr) {
		t.Errorf("resolve differs: %+v; want %+v", pr, wr)
	}
	if len(part.Sources) != 2 || !reflect.DeepEqual(part.Sources[1], whole.Sources[len(whole.Sources)-1]) {
		t.Errorf("sources %+v; want some documents and the example's tables %+v", part.Sources, whole.Sources[len(whole.Sources)-1])
	}
}
