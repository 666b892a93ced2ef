// Package prompts holds kgforge's prompt templates (*.tmpl), embedded in the
// binary and parsed once. A prompt's version is the hash of its text, so a
// changed prompt invalidates every cache entry made with the old one.
//
// It is a leaf: it imports nothing of kgforge.
package prompts
