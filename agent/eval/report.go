package eval

import (
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
)

// Resamples is the number of bootstrap resamples behind every interval.
const Resamples = 2000

// Report summarises a run: one row per agent, and the paired differences
// of accuracy between agents on the same questions.
type Report struct {
	Set       string    `json:"set"`
	Model     string    `json:"model"`
	Bundle    string    `json:"bundle,omitempty"`
	Date      string    `json:"date"`
	Questions int       `json:"questions"`
	Agents    []Summary `json:"agents"`
	Pairs     []Pair    `json:"pairs,omitempty"`
	Results   []Result  `json:"results"`
}

// Summary is one agent's figures over the questions.
type Summary struct {
	Agent    string     `json:"agent"`
	Answered int        `json:"answered"` // questions with a scored answer (no error)
	Correct  int        `json:"correct"`
	Accuracy float64    `json:"accuracy"` // correct over all questions: an error counts as wrong
	CI       [2]float64 `json:"ci95"`     // bootstrap interval of the accuracy
	Errors   int        `json:"errors"`   // questions where the agent failed (Ask returned an error)
	// MeanCalls is tool calls per question; FailedRate the share of calls
	// that failed; WithFailed the questions with at least one failed call.
	MeanCalls  float64 `json:"mean_tool_calls"`
	FailedRate float64 `json:"failed_call_rate"`
	WithFailed int     `json:"questions_with_failed_call"`
	// Budget is the questions whose budget ran out before an answer.
	Budget int `json:"budget_spent"`
	// UniqueInput and Prompt are mean tokens per question.
	UniqueInput float64 `json:"unique_input_tokens"`
	Prompt      float64 `json:"prompt_tokens"`
	// Turns is model calls in all; Uncounted those the server cut without
	// token counts (agent.Tokens.Uncounted), which the token means leave
	// out.
	Turns     int                  `json:"turns"`
	Uncounted int                  `json:"uncounted_turns"`
	ByTool    map[string]ToolStats `json:"by_tool"`
	ByFailure map[string]int       `json:"by_failure"` // failed calls by kind, and FailBudget by questions
	// Seconds is the mean and MaxSeconds the longest wall time of a
	// question, errors left out.
	Seconds    float64 `json:"seconds"`
	MaxSeconds float64 `json:"max_seconds"`
	// ConfidenceRight and ConfidenceWrong are the mean confidence of the
	// answers scored right and of those scored wrong (questions answered
	// within the budget only; 0 when there are none): a confidence that
	// means something is higher on the right ones.
	ConfidenceRight float64 `json:"confidence_right"`
	ConfidenceWrong float64 `json:"confidence_wrong"`
}

// ToolStats counts one tool's calls.
type ToolStats struct {
	Calls  int `json:"calls"`
	Failed int `json:"failed"`
}

// Pair is the paired bootstrap of accuracy(A) - accuracy(B) over the same
// questions.
type Pair struct {
	A    string     `json:"a"`
	B    string     `json:"b"`
	Diff float64    `json:"diff"`
	CI   [2]float64 `json:"ci95"`
}

// Summarize computes the report of a run's results. seed fixes the
// bootstrap resamples, so that a report is reproduced from its results.
func Summarize(results []Result, seed uint64) Report {
	agents, questions := order(results)
	correct := map[string][]float64{} // agent -> 1 or 0 per question, in questions' order
	rep := Report{Questions: len(questions), Results: results}
	for _, a := range agents {
		byQ := map[string]Result{}
		for _, r := range results {
			if r.Agent == a {
				byQ[r.Question] = r
			}
		}
		s := summarize(a, questions, byQ)
		for _, q := range questions {
			r, ok := byQ[q]
			correct[a] = append(correct[a], b2f(ok && r.Verdict.Correct))
		}
		s.CI = bootstrap(seed, len(questions), func(idx []int) float64 { return meanAt(correct[a], idx) })
		rep.Agents = append(rep.Agents, s)
	}
	for i, a := range agents {
		for _, b := range agents[i+1:] {
			diff := func(idx []int) float64 { return meanAt(correct[a], idx) - meanAt(correct[b], idx) }
			rep.Pairs = append(rep.Pairs, Pair{A: a, B: b, Diff: diff(nil), CI: bootstrap(seed, len(questions), diff)})
		}
	}
	return rep
}

func summarize(agent string, questions []string, byQ map[string]Result) Summary {
	s := Summary{Agent: agent, ByTool: map[string]ToolStats{}, ByFailure: map[string]int{}}
	calls, failed, right, wrong := 0, 0, 0, 0
	for _, q := range questions {
		r, ok := byQ[q]
		if !ok || r.Error != "" {
			s.Errors++
			continue
		}
		s.Answered++
		if r.Verdict.Correct {
			s.Correct++
		}
		if !r.Outcome.Answered {
			s.Budget++
			s.ByFailure[FailBudget]++
		}
		hadFail := false
		for _, c := range r.Outcome.Calls {
			calls++
			ts := s.ByTool[c.Tool]
			ts.Calls++
			if c.Fail != "" {
				failed++
				ts.Failed++
				s.ByFailure[c.Fail]++
				hadFail = true
			}
			s.ByTool[c.Tool] = ts
		}
		if hadFail {
			s.WithFailed++
		}
		s.Seconds += r.Seconds
		s.MaxSeconds = max(s.MaxSeconds, r.Seconds)
		if r.Outcome.Answered {
			if r.Verdict.Correct {
				right++
				s.ConfidenceRight += r.Outcome.Confidence
			} else {
				wrong++
				s.ConfidenceWrong += r.Outcome.Confidence
			}
		}
		s.UniqueInput += float64(r.Outcome.Tokens.UniqueInput)
		s.Prompt += float64(r.Outcome.Tokens.Prompt)
		s.Turns += r.Outcome.Tokens.Turns
		s.Uncounted += r.Outcome.Tokens.Uncounted
	}
	n := float64(len(questions))
	s.Accuracy = float64(s.Correct) / n
	s.MeanCalls = float64(calls) / n
	if calls > 0 {
		s.FailedRate = float64(failed) / float64(calls)
	}
	s.UniqueInput /= n
	s.Prompt /= n
	if s.Answered > 0 {
		s.Seconds /= float64(s.Answered)
	}
	if right > 0 {
		s.ConfidenceRight /= float64(right)
	}
	if wrong > 0 {
		s.ConfidenceWrong /= float64(wrong)
	}
	return s
}

// order lists the agents and questions of results in first-seen order.
func order(results []Result) (agents, questions []string) {
	for _, r := range results {
		if !slices.Contains(agents, r.Agent) {
			agents = append(agents, r.Agent)
		}
		if !slices.Contains(questions, r.Question) {
			questions = append(questions, r.Question)
		}
	}
	return agents, questions
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// meanAt is the mean of xs at the indices idx (all of xs when idx is nil).
func meanAt(xs []float64, idx []int) float64 {
	if idx == nil {
		idx = make([]int, len(xs))
		for i := range idx {
			idx[i] = i
		}
	}
	if len(idx) == 0 {
		return 0
	}
	sum := 0.0
	for _, i := range idx {
		sum += xs[i]
	}
	return sum / float64(len(idx))
}

// bootstrap is the 95 % percentile interval of stat over Resamples
// resamples (with replacement) of n indices. Paired statistics resample
// the same questions for both agents, since stat sees one index set.
func bootstrap(seed uint64, n int, stat func(idx []int) float64) [2]float64 {
	if n == 0 {
		return [2]float64{}
	}
	rng := rand.New(rand.NewPCG(seed, 0x6b67666f726765)) //nolint:gosec // resampling, not secrets
	vals := make([]float64, Resamples)
	idx := make([]int, n)
	for b := range vals {
		for i := range idx {
			idx[i] = rng.IntN(n)
		}
		vals[b] = stat(idx)
	}
	sort.Float64s(vals)
	return [2]float64{vals[int(0.025*Resamples)], vals[int(0.975*Resamples)-1]}
}

// WriteTable prints the report as the table docs/benchmarks.md shows.
func (r Report) WriteTable(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "set %s, model %s, %d questions, %s\n\n", r.Set, r.Model, r.Questions, r.Date)
	// A strings.Builder never fails a write: the tabwriter's are not checked.
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	_, _ = fmt.Fprintln(tw, "agent\taccuracy\t95% CI\ttool calls/q\tfailed calls\tq with failed call\tbudget spent\terrors\tunique input tokens/q\tturns (uncounted)\ts/q (max)\tconfidence right / wrong")
	for _, s := range r.Agents {
		_, _ = fmt.Fprintf(tw, "%s\t%.1f %%\t%.1f–%.1f\t%.1f\t%.1f %%\t%d\t%d\t%d\t%.0f\t%d (%d)\t%.1f (%.1f)\t%.2f / %.2f\n", s.Agent, 100*s.Accuracy, 100*s.CI[0], 100*s.CI[1],
			s.MeanCalls, 100*s.FailedRate, s.WithFailed, s.Budget, s.Errors, s.UniqueInput, s.Turns, s.Uncounted, s.Seconds, s.MaxSeconds, s.ConfidenceRight, s.ConfidenceWrong)
	}
	_ = tw.Flush()
	if len(r.Pairs) > 0 {
		b.WriteString("\npaired bootstrap, accuracy difference (95 % CI):\n")
		for _, p := range r.Pairs {
			fmt.Fprintf(&b, "  %s − %s: %+.1f points (%+.1f to %+.1f)\n", p.A, p.B, 100*p.Diff, 100*p.CI[0], 100*p.CI[1])
		}
	}
	b.WriteString("\nper tool (calls, failed) and failures by kind:\n")
	for _, s := range r.Agents {
		fmt.Fprintf(&b, "  %s: %s; %s\n", s.Agent, toolLine(s.ByTool), failureLine(s.ByFailure))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func toolLine(m map[string]ToolStats) string {
	if len(m) == 0 {
		return "no tool calls"
	}
	var parts []string
	for _, k := range sortedKeys(m) {
		parts = append(parts, fmt.Sprintf("%s %d (%d failed)", k, m[k].Calls, m[k].Failed))
	}
	return strings.Join(parts, ", ")
}

func failureLine(m map[string]int) string {
	if len(m) == 0 {
		return "no failures"
	}
	var parts []string
	for _, k := range sortedKeys(m) {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
