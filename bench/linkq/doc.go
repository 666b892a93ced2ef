// Command linkq measures kgforge's link step (consolidate/link) on the
// example corpus against a gold file written by reading the corpus
// (testdata/bikeco.gold.yaml: which names are which table rows, which
// concepts are which tables or columns, the duplicates, the persons).
//
// It reads a bundle (nodes, edges, chunks, triplets, the merge log and,
// where the bundle has one, links.parquet) and prints precision and recall
// per link kind: row entities (ROW_OF), FK edges between them, extracted
// entities resolved onto rows (merged or SAME_AS), chunk → row MENTIONS,
// REPRESENTED_BY and MEASURED_BY, value links; then whether each duplicate
// ended as one node (or stands uncertain near the top of the review order),
// whether distinct names stayed apart, whether a person was typed as a
// company, and how many chunks and rows the links connect.
//
//	go run ./bench/linkq -bundle out/bikeco                       # score a bundle
//	go run ./bench/linkq -pipeline pipelines/example.yaml -both    # build with the model and without, side by side
//	go run ./bench/linkq -pipeline pipelines/example.yaml -model gemma3:270m
//	go run ./bench/linkq -pipeline pipelines/example.yaml -no-model
//
// -no-model builds with extract.skip: no chunk goes to the chat model, so
// the graph is what the tables and the link step make (the name-only path).
package main
