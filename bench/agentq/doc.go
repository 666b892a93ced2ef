// Command agentq measures the query agent on public benchmark dev data
// (../shared/benchmarks, read at run time and never copied into the
// repository): TAT-QA hybrid documents (paragraphs as a document, the
// table as a CSV data table), Spider databases and KaggleDBQA databases
// with their documentation, each turned into bundles by kgforge's own
// build (extraction skipped unless -extract: the structural graph of
// documents, chunks, tables, columns and row entities), then asked of the
// kgforge agent and the two baselines of agent/eval on one model, and
// scored by the harness.
//
//	go run ./bench/agentq -data /work/shared/benchmarks -n 20 -model gemma3:270m
//	go run ./bench/agentq -sets spider,kaggle -heldout training/agent_split.json -n 40 -model kgforge-agent
//
// -heldout keeps Spider's and KaggleDBQA's questions to the databases the
// split holds out of kgforge-agent's training; with -trained, to the
// others (those it trained on), where kgforge's query repairs are read
// from before the held-out figures are measured.
//
// Gold answers: TAT-QA's human answers (number, percent with its scale,
// text, or list); for Spider and KaggleDBQA the result of the gold SQL run
// over the built bundle (table names rewritten to the bundle's), kept only
// when it is non-empty and at most ten rows, as the example's set is made,
// and left out when its ORDER BY … LIMIT cuts through a tie (which of
// the tied rows the gold answer holds is up to the database, and differs
// between runs).
package main
