// Package quality reads the public extraction benchmarks kgforge is measured
// on — Text2KGBench (sentences with an ontology) and Re-DocRED (documents
// with entity clusters and evidence sentences) — from ../shared/benchmarks,
// draws fixed seeded samples, and scores predicted triplets against the gold
// ones by the conventions of those benchmarks: triples compared after
// normalising case, white space and punctuation, micro precision, recall and
// F1, with bootstrap confidence intervals over items.
//
// The data stays where it is: some of it is share-alike or non-commercial
// and must not be copied into kgforge.
package quality
