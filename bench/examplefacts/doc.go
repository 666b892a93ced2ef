// Command examplefacts scores the triplets of a kgforge bundle built from
// the example corpus (examples/bikeco) against the facts a person wrote down
// by reading it (examples/bikeco/gold/facts.tsv; the file's header documents
// the format, INCONSISTENCIES.md beside it where the corpus contradicts
// itself).
//
// It reads the bundle's triplets, keeps one of each normalised (subject,
// predicate, object), and counts a kept triplet
//
//   - correct (strict) when its subject and object are a gold fact's subject
//     and object, in that direction (any alias of the gold file's alias
//     block), and its predicate is one of that fact's predicate forms;
//   - correct (pair) when its subject and object are, whatever the predicate.
//
// Precision is correct / kept; recall is the share of gold facts that at
// least one kept triplet matches. Names are compared normalised: lower
// case, punctuation and symbols dropped, white space runs made one space,
// a leading "the " dropped. Predicates also read '_' and '-' as spaces and
// split camelCase, so based_in, basedIn, BASED_IN and "based in" are equal.
// The tables of the corpus (data/) are not LLM-extracted and have no gold
// facts: a bundle's table-derived triplets, if any, count as unmatched.
//
//	go run ./bench/examplefacts -bundle out/bikeco/latest
//	go run ./bench/examplefacts -bundle out/bikeco -v -json /tmp/facts.json
//
// -v also lists the gold facts no triplet found and the triplets that
// match a fact's names but none of its predicate forms.
package main
