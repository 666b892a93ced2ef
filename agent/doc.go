// Package agent answers questions over a bundle with generic tools (ls,
// cat, query, think, answer and the others the Toolbox registers), none of
// which knows a domain. The loop offers the Toolbox's tools in one of three
// action formats chosen from the model's metadata: Ollama's native tool
// calls, one JSON action per turn constrained by a schema built from the
// tools' parameters, or a few-shot log continued by raw completion for base
// models. A budget of tool calls bounds every question, with a warning at
// 80 %; failed calls come back to the model as messages that say how to call
// right; tool results reach the model delimited, as data. Each question can
// be written as a JSON-lines transcript with token counts (docs/agent.md).
package agent
