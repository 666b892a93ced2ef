// Command extractq measures kgforge's extraction against public gold data:
// Text2KGBench (sentences, with each domain's ontology as the pipeline
// schema) and Re-DocRED dev (whole documents; also the share of correct
// triplets whose evidence lies in a gold evidence sentence). It runs the
// real extractor against an Ollama server, on a fixed seeded sample by
// default or on the full sets (-n 0), grounded and ungrounded, and prints
// precision, recall and F1 with 95% bootstrap intervals, the kept
// triplets, calls, tokens and the replies cut at the output bound. The
// configurations cover both ways of driving the model: chat (the default
// ones) and completion, the raw few-shot pattern for base models, with
// fact lines or the schema's JSON (-configs "completion lines+grounding").
// -dump FILE writes, for one configuration, each item's text, gold
// triples, kept triplets (their confidence and the gold triple each
// matched) and the triplets grounding dropped with the reason, one JSON
// line an item: where the facts are lost.
//
//	go run ./bench/extractq -set text2kg -n 200 -seed 1
//	go run ./bench/extractq -set redocred -n 40 -seed 1
package main
