package stages

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"kgforge/bundle"
	"kgforge/consolidate"
	"kgforge/consolidate/resolve"
	"kgforge/kg"
)

// consolidated is what the consolidate step made, with the models it used.
type consolidated struct {
	out      consolidate.Output
	embedder *consolidate.ModelEmbedder
	judge    *consolidate.LLMJudge
	// nodes and edges count the graph's, also once dropGraph let its
	// edges and chunk nodes go.
	nodes, edges int
}

// dropGraph lets the graph's edges and chunk nodes go once the bundle holds
// them (Writer.WriteGraph): the rest of the bundle needs only the other
// nodes (the search index), the merges and the links.
func (c *consolidated) dropGraph() {
	g := &c.out.Graph
	c.nodes, c.edges = len(g.Nodes), len(g.Edges)
	g.Nodes = slices.DeleteFunc(slices.Clone(g.Nodes), func(n kg.Node) bool { return n.Kind == kg.NodeChunk })
	g.Edges = nil
}

// consolidate resolves and links the whole graph: the global step, run on
// every build from what the segments hold.
// The bundle's triplets are written then, and a's chunks, triplets and
// mentions dropped: the graph is made, and they are what the build held
// besides it.
func (b *build) consolidate(ctx context.Context, a *assembled) (c consolidated, err error) {
	p := b.p
	start := time.Now()
	in := consolidate.Input{
		Sources: a.sources, Chunks: a.chunks, Triplets: a.triplets, Entities: a.entities, Tables: a.tables,
		Resolve: resolve.Config{
			High: p.Resolution.High, Low: p.Resolution.Low, ShortHigh: p.Resolution.ShortHigh,
			MinClusterSim: p.Resolution.MinClusterSim, MaxClusterSize: p.Resolution.MaxClusterSize,
			Compatible: p.Resolution.CompatibleTypes,
		},
		Overrides: b.overrides, FixedPredicates: p.Extract.Schema != nil,
		Data: b.db, Link: linkConfig(p.Link),
	}
	// Only entities are embedded and judged: without any, neither model
	// is asked for.
	hasEntities := len(a.triplets) > 0 || len(a.entities) > 0
	if p.Resolution.EmbeddingsOn() && hasEntities {
		if c.embedder, err = b.rn.embedder(ctx, p, b.digests); err != nil {
			return c, err
		}
		in.Embedder = c.embedder
	}
	if p.Resolution.LLMJudge && hasEntities {
		if c.judge, err = b.rn.judge(ctx, p, b.digests); err != nil {
			return c, err
		}
		in.Judge, in.MaxJudged = c.judge, p.Resolution.MaxJudged
	}
	if c.out, err = consolidate.Build(ctx, in); err != nil {
		return c, err
	}
	c.nodes, c.edges = len(c.out.Graph.Nodes), len(c.out.Graph.Edges)
	if err := b.w.WriteTriplets(a.triplets); err != nil {
		return c, err
	}
	a.drop()
	res := c.out.Resolution // a copy: a pointer into c would hold its graph as long as the report
	b.rep.Resolution = &res
	b.rep.Link = c.out.Tables
	warnUnknownTables(b.rep, p.Link, a.tables)
	for _, o := range c.out.Resolution.UnmatchedOverrides {
		b.rep.warn("consolidate", fmt.Sprintf("%s %s", o.Kind, strings.Join(o.Refs, " / ")), "override not applied: "+o.Reason)
	}
	if c.embedder != nil {
		b.log.Info("entities resolved", "embedded", c.out.Resolution.Embedded, "embed_requests", c.embedder.Calls, "embed_cache_hits", c.embedder.Hits,
			"merged", c.out.Resolution.Stats.Merged, "uncertain", c.out.Resolution.Stats.Uncertain)
	}
	b.rep.stage("consolidate", start, len(c.out.Graph.Nodes))
	return c, nil
}

// commit writes the bundle, then the state directory's record of it. The
// graph's nodes and edges are written first, and its edges and chunk
// nodes dropped (c.dropGraph) before the chunks are streamed.
func (b *build) commit(a assembled, c *consolidated) error {
	p := b.p
	start := time.Now()
	mergeReport := consolidate.MergeReport(c.out.Graph, c.out.Resolution)
	linkReport := consolidate.LinkReport(c.out.Graph, c.out.Tables)
	if err := b.w.WriteGraph(c.out.Graph); err != nil {
		return err
	}
	c.dropGraph()
	m := bundle.Manifest{
		Created: b.now().UTC(), Pipeline: p.Name, PipelineSHA256: p.SHA256,
		// The chat model's digest is empty when the build asked it nothing.
		Models:  map[string]bundle.Model{"chat": {Name: p.LLM.ChatModel, Digest: b.digests.known(p.LLM.ChatModel)}},
		Prompts: map[string]string{p.Extract.Prompt: b.ex.promptVersion(b.checked)},
	}
	if c.judge != nil {
		m.Prompts["judge.tmpl"] = c.judge.PromptVersion()
	}
	contents := bundle.Contents{
		// The triplets are written (consolidate), the nodes and edges too.
		Sources: a.sources, EachChunk: b.eachChunk(context.Background(), a), Tables: a.tables, Graph: c.out.Graph,
		MergeReport: mergeReport, LinkReport: linkReport,
	}
	if c.embedder != nil {
		m.Models["embed"] = bundle.Model{Name: p.LLM.EmbedModel, Digest: c.embedder.Digest}
		if len(c.out.EntityIDs) > 0 {
			vs := bundle.VectorSet{Name: "entities", Model: p.LLM.EmbedModel, Dim: len(c.out.EntityVectors[0]), IDs: c.out.EntityIDs}
			for _, v := range c.out.EntityVectors {
				vs.Data = append(vs.Data, v...)
			}
			contents.Vectors = append(contents.Vectors, vs)
		}
	}
	dir, err := b.w.Commit(contents, m)
	if err != nil {
		return err
	}
	b.committed = true
	b.rep.stage("bundle", start, c.nodes+c.edges)
	b.rep.Bundle = dir
	b.log.Info("bundle written", "dir", dir, "nodes", c.nodes, "edges", c.edges)
	b.rep.Plan.compare(b.prev, b.sourceDigests)
	return b.st.writeRecord(buildRecord{BuildID: b.rep.BuildID, Sources: b.sourceDigests, Segments: b.segments})
}

// loadGraph loads the committed bundle into Neo4j, when asked to.
func (b *build) loadGraph(ctx context.Context) error {
	if b.rn.Neo4j == nil {
		return nil
	}
	start := time.Now()
	st, err := loadNeo4j(ctx, *b.rn.Neo4j, b.rep.Bundle, b.log)
	if err != nil {
		return err
	}
	b.rep.Neo4j = &st
	b.rep.stage("neo4j", start, st.Nodes+st.Relationships)
	return nil
}

// finish fills the report's totals and writes it beside the bundles.
func (b *build) finish(a assembled, c consolidated) (*Report, error) {
	rep := b.rep
	rep.Sources, rep.Chunks, rep.Tables, rep.Triplets, rep.Entities = len(a.sources), a.nChunks, len(a.tables), a.nTriplets, a.nEntities
	rep.Nodes, rep.Edges, rep.Merges = c.nodes, c.edges, len(c.out.Graph.Merges)
	b.usage()
	if err := b.recordRate(); err != nil {
		rep.warn("build", RatesFile, err.Error()) // only the next plan's estimate needs it
	}
	rep.Status = StatusOK
	if len(rep.Rejected) > 0 {
		rep.Status = StatusPartial
	}
	gateErr := rep.gateErr()
	if gateErr != nil {
		rep.Status = StatusFailed
	}
	rep.Finished = b.now()
	b.log.Info("build finished", "status", rep.Status, "build_id", rep.BuildID, "rejected", len(rep.Rejected))
	return rep, errors.Join(writeReport(b.outDir, rep), gateErr)
}

// usage fills the report's extraction and model figures.
func (b *build) usage() {
	rep := b.rep
	rep.Extract = b.ex.Stats()
	rep.LLM = b.rn.LLM.Usage()
	rep.TokensPS = rep.LLM.TokensPerSecond()
	if d := rep.Stages["extract"].Duration; d > 0 && rep.LLM.Calls > 0 {
		rep.ServerBusy = rep.LLM.ServerDuration.Seconds() / (d.Seconds() * float64(b.p.LLM.Concurrency))
	}
	rep.Endpoints = endpointReports(b.rn.LLM, b.p, rep.Stages["extract"].Duration)
}
