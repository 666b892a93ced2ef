package agent

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// askVoting asks the scripted model's agent one question over the
// example's bundle with samples more queries drawn, and returns the
// answer and the vote's transcript line.
func askVoting(t *testing.T, m *scripted, samples int, question string) (Answer, *voteEvent) {
	t.Helper()
	var tr bytes.Buffer
	ans := askExampleWith(t, m, Options{Model: "m", Samples: samples, Transcript: &tr}, question)
	var vote *voteEvent
	for _, line := range strings.Split(tr.String(), "\n") {
		if strings.Contains(line, `"event":"vote"`) {
			vote = &voteEvent{}
			if err := json.Unmarshal([]byte(line), vote); err != nil {
				t.Fatal(err)
			}
		}
	}
	return ans, vote
}

// TestAgentVote_TakesTheRowsMostQueriesReturn: with Samples, the first
// turn's query is the one whose rows the most drawn queries return; a
// query that fails or matches nothing has no vote; a tie keeps the
// model's own; the draws are not steps. (The action model is scripted.)
func TestAgentVote_TakesTheRowsMostQueriesReturn(t *testing.T) {
	const (
		austria = `{"tool":"select","args":{"table":"suppliers","columns":["name"],"where":[{"column":"country","op":"=","value":"Austria"}]}}`
		spain   = `{"tool":"select","args":{"table":"suppliers","columns":["name"],"where":[{"column":"country","op":"=","value":"Spain"}]}}`
		spain2  = `{"tool":"select","args":{"table":"suppliers","columns":["name"],"where":[{"column":"country","op":"contains","value":"Spain"}]}}`
		nothing = `{"tool":"select","args":{"table":"suppliers","columns":["name"],"where":[{"column":"country","op":"=","value":"Atlantis"}]}}`
		broken  = `{"tool":"select","args":{"table":"suppliers","columns":["nonsense"]}}`
	)
	m := script(actionModel, austria, spain, broken, spain2, nothing)
	ans, vote := askVoting(t, m, 4, "Which suppliers are in Spain?")
	if vote == nil || vote.Chosen != 1 || len(vote.Candidates) != 5 {
		t.Fatalf("vote %+v; want the second of five queries (Spain, returned twice)", vote)
	}
	if got := strings.Join(vote.Results, ","); got != "+,++,error,++,no rows" {
		t.Errorf("results %q", got)
	}
	if !ans.Answered || !strings.Contains(string(ans.Steps[0].Args), "Spain") || ans.Text != "Serra Brakes" {
		t.Errorf("steps %+v, answer %q; want the Spain query run as the first step", ans.Steps, ans.Text)
	}
	if len(ans.Steps) != 2 {
		t.Errorf("%d steps; the draws are not steps", len(ans.Steps))
	}
	if len(m.gens) != 5 || m.gens[1].Temperature != voteTemperature || m.gens[1].Seed == m.gens[2].Seed || m.gens[1].Prompt != m.gens[0].Prompt {
		t.Errorf("calls %d; want the greedy turn and four draws of the same prompt at %v with their own seeds", len(m.gens), voteTemperature)
	}

	// A tie: the model's own query stays.
	m = script(actionModel, austria, spain, broken)
	if _, vote = askVoting(t, m, 2, "Which suppliers are in Spain?"); vote == nil || vote.Chosen != 0 || strings.Join(vote.Results, ",") != "+,+,error" {
		t.Errorf("vote %+v; want the model's own query kept on a tie", vote)
	}
	// No samples: no draw, no vote.
	m = script(actionModel, austria)
	if ans, vote = askVoting(t, m, 0, "Which suppliers are in Austria?"); vote != nil || len(m.gens) != 1 || ans.Text != "Danubia Wheelworks" {
		t.Errorf("vote %+v, %d calls, answer %q; want the model's own query alone", vote, len(m.gens), ans.Text)
	}
}
