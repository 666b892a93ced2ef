// Package extract turns chunks into grounded triplets and entities: it
// prompts the LLM through llm with a versioned prompt and a JSON schema
// (structured outputs), parses the reply (repairing a truncated array where
// that is safe), and keeps a triplet only when its evidence quote is found
// in the chunk (exactly, after folding case and white space, or fuzzily
// above FuzzyThreshold) and its subject and object appear there, and an
// entity only when its name appears there. Then the rules for a real fact
// (CheckTriplet, CheckEntity, FromExamples) drop a subject, object or entity
// that is a clause, a name its evidence does not write, a predicate made of
// a name, and a name copied from the prompt's examples. Everything dropped
// is counted by reason.
//
// The chunk is data: it goes only into the last user message, between
// delimiters it cannot close; the instructions are the system message. A
// pipeline's Schema turns types and predicates into enums of its names. A
// chunk whose prompt and reply bound exceed the context window is rejected,
// never cut. Optional gleaning turns ask the model for what it missed.
package extract
