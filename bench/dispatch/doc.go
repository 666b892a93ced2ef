// Command dispatch measures how close llm.Client's dispatch over several
// endpoints comes to the ideal throughput. It is a simulation, for this
// measurement only: each endpoint is a fake server (in this process, over
// loopback HTTP) that answers /api/generate after a delay proportional to
// the request's tokens, working on at most its slots at once, like Ollama
// with OLLAMA_NUM_PARALLEL. The requests go through the real client (its
// least-loaded dispatch, slot bounds and accounting), from one worker per
// slot, as a build's extract workers do.
//
// The ideal is every slot busy from the first request to the last: the sum
// of the delays over N×slots (slowed slots counted at their speed). The
// efficiency is that over the wall time. The greedy time is the same
// requests placed, in order, on the slot that frees first, with no
// overhead: greedy over wall leaves out what the end of a run must leave
// idle, and so isolates the dispatch's and HTTP's own cost.
//
//	go run ./bench/dispatch                      # N = 1, 2, 4, 8, 16
//	go run ./bench/dispatch -n 16 -slots 4 -per-slot 40 -json out.json
package main
