// Command erq measures entity-resolution quality: how well a resolver merges
// the names of one entity and keeps apart those of different ones, on public
// gold sets and a synthetic one, for kgforge's resolver and the usual
// baselines side by side in one run.
//
// Sets, read from ../shared/benchmarks at run time (never copied here):
// PATSTAT dev (company names from patent records, one pooled problem),
// Abt-Buy (products) and DBLP-ACM (paper titles), two sources each with
// gold matches, Re-DocRED dev (the surface forms of each entity of a
// document; each document its own problem), and a synthetic set generated
// here with planted near-misses that must never merge ("Station 1" /
// "Station 2", "Model X50" / "Model X500") beside true duplicates ("Acme
// Inc." / "ACME", "Société Générale" / "Societe Generale").
//
// Methods: exact (equal after case and white-space folding), fuzzy
// (normalised Levenshtein similarity at least -fuzzy, transitive closure),
// cosine-0.8 (all-pairs cosine of all-minilm embeddings of the names at
// least 0.8, transitive closure: neo4j-graphrag's semantic resolver), and
// kgforge (kgforge/consolidate/resolve with its defaults, given the same
// embeddings; see kgforge.go). The baselines compare only names of the
// same type, as neo4j-graphrag's resolvers do.
//
// Scores: pairwise precision, recall and F1 over the pairs within each
// problem, and B³ precision, recall and F1 over records, with 95% bootstrap
// intervals that resample documents (Re-DocRED) or gold entities (pooled
// sets); on the synthetic set, the number of planted near-miss pairs merged.
// Embeddings come from all-minilm through ONNX Runtime in process when
// scripts/onnx.sh has put its files in place (-embedder auto), else from
// the Ollama server at OLLAMA_HOST (-embedder ollama), and are cached on
// disk by model, digest and text, so a rerun embeds nothing.
//
// The default report (-report oos) measures every configuration whose
// parameters are fitted on data on data it was not fitted on (oos.go):
//
//   - leave one set out over the -sets (the dev sets and the synthetic
//     one): for each set, the calibrated score is refitted on the candidate
//     pairs of all the others (the procedure of -fit), and the simple rule,
//     the cosine threshold and the fuzzy threshold are picked on the others
//     (highest mean pairwise F1, each set weighing the same), then all are
//     measured on the set held out;
//   - the committed model (consolidate/resolve/model.json) on the dev
//     records outside the sample it was fitted on (its fit record names
//     the sets, -n and -seed): "abt-buy/outside-fit", "dblp-acm/outside-fit",
//     -n gold entities of them drawn with -seed; PATSTAT's fit sample is the
//     whole set, so it has none;
//   - beside them, labelled in-sample: the committed model on its own fit
//     sample, the score fitted on every set, the simple rule best on the set
//     itself.
//
// kgforge as a build runs it (resolve.Config{}: each kind of name by its
// rule set, no score) has no parameter fitted on data and is labelled
// fixed; the report compares it on every set with the simple rule picked
// on the other sets and with the best of the fixed rules (exact, fuzzy-0.8,
// cosine-0.8). The score's configurations (committed, refitted without
// the set, fitted on every set) run every kind under rules: score.
//
// It also prints kgforge's candidate recall on every set (the share of the
// true pairs among resolve.Candidates' pairs, and of those joined by a path
// of candidates), every simple rule at thresholds 0.70–0.90, each kind of
// name apart (organisations: PATSTAT and Re-DocRED's ORG; persons; products:
// Abt-Buy; titles: DBLP-ACM; Re-DocRED's other types; the synthetic set),
// and the score's calibration on the candidate pairs it decides: a
// reliability table (ten bins of predicted probability, the pairs at 0.99
// or more apart) and the expected calibration error, out-of-sample and
// in-sample. -report table prints the -methods on the -sets as they are.
//
//	go run ./bench/erq                    # out of sample: -n 500 entities per pooled set, -docs 100, seed 1
//	go run ./bench/erq -out erq.json      # the same, also as JSON
//	go run ./bench/erq -report table -sets patstat,synthetic -methods exact,cosine,kgforge
//	go run ./bench/erq -report table -errors errs.tsv   # also every pair missed or joined wrongly, with kgforge's reason
package main
