package main

import (
	"fmt"
	"strings"

	"kgforge/llm"
	"kgforge/pipelines"
	"kgforge/stages"
)

// llmOptions are the LLM client's options for a pipeline: its
// llm.endpoints, or none (OLLAMA_HOST), its llm.num_thread and llm.timeout,
// and llm.max_context as every call's context window (llm.Options.MinContext:
// one window, so no call reloads a runner loaded with another).
func llmOptions(p *pipelines.Pipeline) llm.Options {
	o := llm.Options{NumThread: p.LLM.NumThread, Timeout: p.LLM.Timeout, MinContext: p.LLM.MaxContext}
	for _, e := range p.LLM.Endpoints {
		o.Endpoints = append(o.Endpoints, llm.Endpoint{URL: e.URL, Slots: e.Slots})
	}
	return o
}

// endpointSummary renders one line per endpoint of llm.endpoints:
// "  endpoint:  http://gpu-1:11434 (4 slots): 120 calls, 9000 + 2000 tokens, 2 failures, busy 93%".
func endpointSummary(r *stages.Report) string {
	var w strings.Builder
	for _, e := range r.Endpoints {
		fmt.Fprintf(&w, "  endpoint:  %s (%d slots): %d calls, %d prompt + %d completion tokens, %d failures, busy %.0f%%",
			e.URL, e.Slots, e.Calls, e.PromptTokens, e.CompletionTokens, e.Failures, 100*e.BusyShare)
		if e.Out != "" {
			fmt.Fprintf(&w, "; out: %s", e.Out)
		}
		w.WriteByte('\n')
	}
	return w.String()
}
