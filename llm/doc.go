// Package llm is kgforge's one client for Ollama: chat with a JSON schema
// (structured outputs), embeddings in batches, model checks, bounded retries
// with exponential backoff and jitter, and token accounting.
//
// It is the only package that imports github.com/ollama/ollama/api. A Client
// is safe for concurrent use.
package llm
