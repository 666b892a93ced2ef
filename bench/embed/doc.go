// Command embed measures names/s of the embedding model through a private
// Ollama server at several batch sizes, concurrent requests and num_thread
// settings, on the distinct names of the entity-resolution sets (PATSTAT
// names and inventors, Abt-Buy product titles, DBLP-ACM titles, authors and
// venues), and writes the vectors for comparison with another runtime.
// run.sh drives it with the server settings and, in the same run, ONNX
// Runtime (ort_bench.py); docs/benchmarks.md "Embedding throughput" has the
// figures.
package main
