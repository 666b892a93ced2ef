package stages

import (
	"context"
	"errors"
	"fmt"

	"kgforge/llm"
)

// ErrBudget means a build stopped at its token budget (Runner.MaxTokens
// or limits.max_build_tokens): nothing was published; the extract units
// it finished are kept in the state directory, so the next build resumes
// from them.
var ErrBudget = errors.New("token budget")

// BudgetError says why a build stopped at its budget: before extraction,
// when the plan's estimate is over it, or during extraction, when the
// tokens counted reach it.
type BudgetError struct {
	Limit int64 // the budget, prompt and completion tokens together
	// Before is set when the plan stopped the build: Estimate is its
	// estimate for Misses chunks; Measured says whether it came from a
	// measured rate (else it is the prompt tokens alone, from their size).
	Before   bool
	Estimate int64
	Misses   int
	Measured bool
	// Spent is what extraction counted when it stopped, and Units the
	// extract units it had finished by then.
	Spent, Prompt, Completion int64
	Units                     int
}

func (e *BudgetError) Error() string {
	if e.Before {
		basis := "at the rate measured on this server"
		if !e.Measured {
			basis = "prompt tokens alone, from their size: no rate measured yet"
		}
		return fmt.Sprintf("token budget: the plan estimates %d tokens (%s) for the %d chunks that miss the LLM cache, over the budget of %d (--max-tokens or limits.max_build_tokens); nothing was extracted and nothing published",
			e.Estimate, basis, e.Misses, e.Limit)
	}
	return fmt.Sprintf("token budget: extraction counted %d tokens (%d prompt + %d completion), reaching the budget of %d (--max-tokens or limits.max_build_tokens); nothing was published; the %d extract units finished are kept in the state directory and the next build resumes from them",
		e.Spent, e.Prompt, e.Completion, e.Limit, e.Units)
}

func (e *BudgetError) Unwrap() error { return ErrBudget }

// tokenBudget counts the tokens a build's LLM client spends from the
// moment it was made. A nil budget is no budget.
type tokenBudget struct {
	limit  int64
	client *llm.Client
	start  llm.Usage
	units  func() int // extract units finished so far, for the error
}

// spent returns the prompt and completion tokens counted since the start.
func (t *tokenBudget) spent() (prompt, completion int64) {
	u := t.client.Usage()
	return u.PromptTokens - t.start.PromptTokens, u.CompletionTokens - t.start.CompletionTokens
}

// check fails once the counted tokens reach the budget. It is called
// before each chunk goes to the extractor, so the call that crosses the
// budget ends, and its unit is stored, before the build stops.
func (t *tokenBudget) check() error {
	if t == nil {
		return nil
	}
	p, c := t.spent()
	if p+c < t.limit {
		return nil
	}
	return &BudgetError{Limit: t.limit, Spent: p + c, Prompt: p, Completion: c, Units: t.units()}
}

// budgetLimit is the build's budget: the runner's when set, else the
// pipeline's; 0 is none.
func (b *build) budgetLimit() int64 {
	if b.rn.MaxTokens > 0 {
		return b.rn.MaxTokens
	}
	return b.p.Limits.MaxBuildTokens
}

// checkBudget stops a build whose plan is over its budget before anything
// is extracted, and arms the count that stops it during extraction. With
// no rate measured yet, the estimate is the prompt tokens alone: a lower
// bound, so that a first build is not refused on a guess.
func (b *build) checkBudget(ctx context.Context) error {
	limit := b.budgetLimit()
	if limit <= 0 || b.p.Extract.Skip || b.rn.Reduce { // a reduce extracts nothing
		return nil
	}
	f, err := b.forecast(ctx)
	if err != nil {
		return err
	}
	est := f.Estimate.PromptTokens + f.Estimate.CompletionTokens
	if est > limit {
		return &BudgetError{Limit: limit, Before: true, Estimate: est, Misses: f.Chunks.Misses, Measured: f.Estimate.Rate != nil}
	}
	b.ex.budget = &tokenBudget{limit: limit, client: b.rn.LLM, start: b.rn.LLM.Usage(), units: func() int {
		n := 0
		for _, addr := range f.toRun {
			if b.st.has(addr) {
				n++
			}
		}
		return n
	}}
	return nil
}
