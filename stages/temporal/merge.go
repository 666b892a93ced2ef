package temporal

import (
	"maps"

	"kgforge/extract"
	"kgforge/llm"
)

// addUsage sums two activities' model usage.
func addUsage(a, b llm.Usage) llm.Usage {
	a.Calls += b.Calls
	a.Retries += b.Retries
	a.PromptTokens += b.PromptTokens
	a.CompletionTokens += b.CompletionTokens
	a.EvalDuration += b.EvalDuration
	a.ServerDuration += b.ServerDuration
	a.EmbedInputs += b.EmbedInputs
	a.RepeatStopped += b.RepeatStopped
	return a
}

// addStats sums two activities' extraction counts.
func addStats(a, b extract.Stats) extract.Stats {
	a.Chunks += b.Chunks
	a.CacheHits += b.CacheHits
	a.Skipped += b.Skipped
	a.TooLong += b.TooLong
	a.Calls += b.Calls
	a.GleaningCalls += b.GleaningCalls
	a.Gleaned += b.Gleaned
	a.Kept += b.Kept
	a.EntitiesKept += b.EntitiesKept
	a.Cut = addCounts(a.Cut, b.Cut)
	a.Dropped = addCounts(a.Dropped, b.Dropped)
	a.EntitiesDropped = addCounts(a.EntitiesDropped, b.EntitiesDropped)
	return a
}

func addCounts(a, b map[string]int) map[string]int {
	if len(b) == 0 {
		return a
	}
	out := maps.Clone(a)
	if out == nil {
		out = map[string]int{}
	}
	for k, n := range b {
		out[k] += n
	}
	return out
}
