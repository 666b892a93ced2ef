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
// Embeddings come from the Ollama server at OLLAMA_HOST and are cached on
// disk by model and text, so a rerun sends nothing.
//
//	go run ./bench/erq                    # seeded samples: -n 500 entities per pooled set, -docs 100
//	go run ./bench/erq -full -out erq.json
package main
