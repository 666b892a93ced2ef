// Package agent answers questions over a bundle with generic tools: ls (the
// bundle's files and SQL tables), cat (a file's first rows or lines), query
// (one read-only SQL statement in the bundle's sandbox) and answer. The model
// picks one tool per turn through a JSON schema (structured outputs), so the
// loop works with models that have no native tool calling; a step budget
// bounds every question.
package agent
