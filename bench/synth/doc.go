// Package synth makes deterministic synthetic knowledge graphs shaped like
// the ones kgforge builds, for benchmarks that need a large graph without an
// LLM run: the bundle writer and reader, and the Neo4j loader.
//
// A graph is mostly concept (entity) nodes with a type, a name of a few
// words, a description sentence, aliases and the chunks that mention them,
// plus about 5% document and chunk nodes; its edges are facts with one of
// about thirty lower-snake-case predicates, an evidence sentence, a
// confidence and an evidence span, plus the structural HAS_CHUNK and
// MENTIONS edges. The same arguments give the same graph.
package synth
