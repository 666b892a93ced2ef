// Package extract turns chunks into grounded triplets: it prompts the LLM
// through llm with a versioned prompt and a JSON schema (structured outputs),
// parses the reply (repairing a truncated array where that is safe), and
// keeps a triplet only when its evidence quote is found in the chunk and its
// subject and object appear there. Everything dropped is counted by reason.
package extract
