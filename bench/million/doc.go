// Command million measures the issue-17 target, a million distinct entity
// names embedded and resolved on this machine, through the pipeline's own
// path: names generated from word lists (companies, people, products, with
// planted duplicates written another way), embedded in process through
// ONNX Runtime (onnxembed, what llm.embed_runtime auto picks when the files
// of scripts/onnx.sh are there) by consolidate.ModelEmbedder as a build
// does, and resolved by consolidate/resolve with the pipeline's default
// settings. It times each phase, records the peak RSS and the load, and
// checks the result: the share of planted duplicates found in the cluster
// of the name they duplicate, the clusters that join two generated
// names, and the pairs of names the clusters join that are two things
// (pairwise precision: each generated base name is its own thing, a
// planted duplicate is its base's). -sweep compares onnxembed settings (batch, threads, sessions) on a
// smaller sample in the same process first; -ollama embeds a sample through
// an Ollama server too, for the side-by-side table. docs/benchmarks.md,
// "A million names", has the figures.
package main
