package stages

import (
	"context"
	"sync/atomic"
	"time"

	"kgforge/kg"

	"golang.org/x/sync/errgroup"
)

// sourceWorkers is how many source units run at once: reading and
// cutting is CPU work, and extraction, the slow stage, must never wait on it.
const sourceWorkers = 4

// produce runs the units of the plan that have no stored segment and
// reuses the others: source units on a small pool, their extract units'
// chunks on as many workers as the LLM server has parallel slots. Each
// unit writes its segment when it ends, so a build stopped at any moment
// keeps every unit it finished. It returns the source units in plan order
// (a zero unit for a source that a shard leaves to another).
func (b *build) produce(ctx context.Context) ([]sourceUnit, error) {
	units := make([]sourceUnit, len(b.found))
	g, gctx := errgroup.WithContext(ctx)
	jobs := make(chan chunkJob, 4*b.p.LLM.Concurrency)
	var extracting atomic.Int64
	g.Go(func() error {
		defer close(jobs)
		start := time.Now()
		sg, sctx := errgroup.WithContext(gctx)
		sg.SetLimit(sourceWorkers)
		if b.rn.Progress != nil {
			n := 0
			for _, f := range b.found {
				if b.runsSource(f) {
					n++
				}
			}
			b.rn.Progress.Sources(n)
		}
		for k := range b.found {
			i := (b.firstSource() + k) % len(b.found)
			f := b.found[i]
			if !b.runsSource(f) {
				continue
			}
			sg.Go(func() error {
				u, err := b.readSource(sctx, f)
				if err != nil {
					return err
				}
				b.count(func(p *Plan) { p.units(u) })
				units[i] = u
				if err := b.feed(sctx, &units[i], jobs); err != nil {
					return err
				}
				if b.rn.Progress != nil {
					b.rn.Progress.SourceDone()
				}
				return nil
			})
		}
		err := sg.Wait()
		b.rep.stage("ingest", start, len(b.found))
		return err
	})
	g.Go(func() error {
		start := time.Now()
		workers, wctx := errgroup.WithContext(gctx)
		for range b.p.LLM.Concurrency {
			workers.Go(func() error {
				for j := range jobs {
					if err := b.extractOne(wctx, j); err != nil {
						return err
					}
					extracting.Add(1)
				}
				return nil
			})
		}
		err := workers.Wait()
		b.rep.stage("extract", start, int(extracting.Load()))
		return err
	})
	return units, g.Wait()
}

// feed plans the extract units of one document: a unit whose segment is
// stored is reused, the chunks of the others go to the extract workers (a
// shard's only, a reduce's none: shard.go).
func (b *build) feed(ctx context.Context, u *sourceUnit, jobs chan<- chunkJob) error {
	if b.p.Extract.Skip || u.meta.Reject != "" || u.reject != "" {
		return nil
	}
	var byID map[string]kg.Chunk
	chunks := func() (map[string]kg.Chunk, error) {
		if byID == nil {
			chunks, err := b.chunksOf(ctx, u)
			if err != nil {
				return nil, err
			}
			byID = make(map[string]kg.Chunk, len(chunks))
			for _, c := range chunks {
				byID[c.ID] = c
			}
		}
		return byID, nil
	}
	for k, bm := range u.meta.Batches {
		if !b.mine(bm) {
			continue // another shard's
		}
		addr, made, err := b.extractInputs(ctx, bm)
		if err != nil {
			return err
		}
		u.extract = append(u.extract, addr)
		u.asks = append(u.asks, bm.Ask)
		run, err := b.runsExtract(ctx, u, k, addr, made, chunks)
		if err != nil {
			return err
		}
		if !run {
			continue
		}
		got, err := chunks()
		if err != nil {
			return err
		}
		bt, err := newBatch(addr, bm, got)
		if err != nil {
			return err
		}
		bt.made = made
		for i := range bt.chunks {
			if b.rn.Progress != nil {
				b.rn.Progress.Queued()
			}
			select {
			case jobs <- chunkJob{b: bt, i: i}:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
	u.chunks = nil // what a document held is on disk; the bundle reads it back
	return nil
}

// extractOne extracts from one chunk; a rejected chunk is recorded in its
// unit, any other error is fatal.
func (b *build) extractOne(ctx context.Context, j chunkJob) error {
	c := j.b.chunks[j.i]
	res, err := b.ex.Process(ctx, c)
	if b.rn.Progress != nil {
		b.rn.Progress.Done()
	}
	var rej *Reject
	if err != nil {
		if !isRejected(err) {
			return err
		}
		rej = &Reject{Stage: "extract", Item: c.ID, Reason: err.Error()}
	}
	return b.done(j, res, rej)
}
