// Package temporal runs a kgforge build on Temporal (docs/temporal.md): the
// build is a workflow of N shard activities (each a stages.Runner with
// Shard{I, N}) and one reduce activity (Runner.Reduce), hosted by
// `kgforge worker` processes that share the output directory's state and
// the reply cache. Activities pass references (the pipeline's path and
// digest, the output directory), never data: what a unit made is a
// content-addressed segment on the shared volume, so a retried activity
// reuses every segment, and every cached model reply, its killed attempt
// left. It is the one importer of go.temporal.io.
package temporal
