package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"kgforge/agent"
	"kgforge/bench/internal/benchdata"
	"kgforge/bench/internal/sqlqa"
	"kgforge/llm"
)

// benchmarks is the shared benchmark data, beside the repository.
func benchmarks(t *testing.T) string {
	t.Helper()
	return benchdata.Require(t, filepath.Join("sql-qa", "spider", "dev.json"))
}

// noModel is a client no server answers: the builds ask no model
// (extraction and embeddings are off).
func noModel(t *testing.T) *llm.Client {
	t.Helper()
	client, err := llm.New(llm.Options{Host: "http://127.0.0.1:1", MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.Close)
	return client
}

// TestConvert_SpiderForms converts real gold SQL of Spider's poker_player
// database over its bundle, built by kgforge: the forms the typed query
// can say, with the arguments they become, and the forms it cannot, with
// the reason.
func TestConvert_SpiderForms(t *testing.T) {
	data := benchmarks(t)
	t.Setenv("KGFORGE_CACHE_DIR", t.TempDir())
	s, err := sqlqa.Spider(data)
	if err != nil {
		t.Fatal(err)
	}
	o := options{work: t.TempDir(), model: llm.ChatModelForTests}
	q, err := openQuestioner(context.Background(), o, noModel(t), s, "poker_player")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := q.close(); err != nil {
			t.Error(err)
		}
	})
	const pp, people = "poker_player_poker_player", "poker_player_people"
	cases := []struct {
		name, sql, want, refused string
	}{
		{"count star", `SELECT count(*) FROM poker_player`, `{"table":"` + pp + `","aggregate":{"fn":"count","column":"Poker_Player_ID"}}`, ""},
		{"order desc", `SELECT Earnings FROM poker_player ORDER BY Earnings DESC`, `{"table":"` + pp + `","columns":["Earnings"],"order_by":{"column":"Earnings","desc":true}}`, ""},
		{"filter and aggregate", `SELECT max(Final_Table_Made) FROM poker_player WHERE Earnings  <  200000`, `{"table":"` + pp + `","where":[{"column":"Earnings","op":"<","value":"200000"}],"aggregate":{"fn":"max","column":"Final_Table_Made"}}`, ""},
		{"limit", `SELECT Money_Rank FROM poker_player ORDER BY Earnings DESC LIMIT 1`, `{"table":"` + pp + `","columns":["Money_Rank"],"order_by":{"column":"Earnings","desc":true},"limit":1}`, ""},
		{
			"join along the foreign key", `SELECT T1.Name FROM people AS T1 JOIN poker_player AS T2 ON T1.People_ID  =  T2.People_ID WHERE T2.Earnings  >  300000`,
			`{"table":"` + people + `","columns":["Name"],"where":[{"column":"` + pp + `.Earnings","op":">","value":"300000"}]}`, "",
		},
		{"group and count", `SELECT Nationality ,  COUNT(*) FROM people GROUP BY Nationality`, `{"table":"` + people + `","columns":["Nationality"],"group_by":["Nationality"],"aggregate":{"fn":"count","column":"People_ID"}}`, ""},
		{
			"order by the count", `SELECT Nationality FROM people GROUP BY Nationality ORDER BY COUNT(*) DESC LIMIT 1`,
			`{"table":"` + people + `","columns":["Nationality"],"group_by":["Nationality"],"aggregate":{"fn":"count","column":"People_ID"},"order_by":{"column":"aggregate","desc":true},"limit":1}`, "",
		},
		{"double-quoted string", `SELECT Name FROM people WHERE Nationality != "Russia"`, `{"table":"` + people + `","columns":["Name"],"where":[{"column":"Nationality","op":"!=","value":"Russia"}]}`, ""},
		{"distinct", `SELECT DISTINCT Nationality FROM people WHERE Height > 190`, `{"table":"` + people + `","columns":["Nationality"],"where":[{"column":"Height","op":">","value":"190"}],"group_by":["Nationality"]}`, ""},
		{
			"between and like", `SELECT Name FROM people WHERE Height BETWEEN 180 AND 200 AND Name LIKE '%an%'`,
			`{"table":"` + people + `","columns":["Name"],"where":[{"column":"Height","op":">=","value":"180"},{"column":"Height","op":"<=","value":"200"},{"column":"Name","op":"contains","value":"an"}]}`, "",
		},
		{"having", `SELECT Nationality FROM people GROUP BY Nationality HAVING COUNT(*)  >=  2`, "", "not expressible: HAVING"},
		{"not in", `SELECT Name FROM people WHERE People_ID NOT IN (SELECT People_ID FROM poker_player)`, "", "not expressible: NOT or IN"},
		{"count distinct", `SELECT count(DISTINCT Nationality) FROM people`, `{"table":"` + people + `","aggregate":{"fn":"count_distinct","column":"Nationality"}}`, ""},
		{"sum distinct", `SELECT sum(DISTINCT Height) FROM people`, "", "not expressible: an aggregate of distinct values other than count"},
		{"two aggregates", `SELECT avg(Earnings), max(Earnings) FROM poker_player`, "", "not expressible: more than one aggregate"},
		{"set operation", `SELECT Name FROM people WHERE Height > 200 UNION SELECT Name FROM people WHERE Height < 170`, "", "not expressible: a set operation (INTERSECT, UNION, EXCEPT)"},
		{"or", `SELECT Name FROM people WHERE Height > 200 OR Height < 170`, "", "not expressible: OR"},
		{"prefix like", `SELECT Name FROM people WHERE Name LIKE 'A%'`, "", "not expressible: LIKE other than '%text%'"},
		{"join on other columns", `SELECT T1.Name FROM people AS T1 JOIN poker_player AS T2 ON T1.People_ID = T2.Poker_Player_ID`, "", "not expressible: a join on other columns than the foreign key"},
		{"arithmetic", `SELECT max(Earnings) - min(Earnings) FROM poker_player`, "", "not expressible: arithmetic"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := parseSQL(c.sql)
			var conv conversion
			if err == nil {
				conv, err = convert(p, q.sch, q.g.Table)
			}
			if c.refused != "" {
				if err == nil || err.Error() != c.refused {
					t.Fatalf("got error %v, want %q", err, c.refused)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, err := marshal(conv.args)
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
			// The typed query runs in the agent's toolbox.
			if _, err := q.a.Toolbox().Call(context.Background(), agent.ToolSelect, json.RawMessage(got)); err != nil {
				t.Errorf("select %s: %v", got, err)
			}
		})
	}
}

func TestAllows_TheGrammarsRules(t *testing.T) {
	schema := json.RawMessage(`{"anyOf":[{"type":"object","required":["tool","args"],"properties":{"tool":{"type":"string","enum":["answer"]},"args":` +
		`{"type":"object","required":["answer","confidence"],"properties":{"answer":{"type":"string","maxLength":5},"confidence":{"type":"number","minimum":0,"maximum":1},` +
		`"citations":{"type":"array","maxItems":1,"items":{"type":"object","required":["kind"],"properties":{"kind":{"type":"string","enum":["row"]}}}}}}}}]}`)
	cases := []struct {
		name, completion string
		ok               bool
	}{
		{"required first, in order", `{"tool":"answer","args":{"answer":"6","confidence":0.9}}`, true},
		{"optional after", `{"tool":"answer","args":{"answer":"6","confidence":0.9,"citations":[{"kind":"row"}]}}`, true},
		{"optional before a required one", `{"tool":"answer","args":{"answer":"6","citations":[],"confidence":0.9}}`, false},
		{"required in another order", `{"tool":"answer","args":{"confidence":0.9,"answer":"6"}}`, false},
		{"a tool not in the enum", `{"tool":"ls","args":{"answer":"6","confidence":0.9}}`, false},
		{"too long", `{"tool":"answer","args":{"answer":"123456","confidence":0.9}}`, false},
		{"over the maximum", `{"tool":"answer","args":{"answer":"6","confidence":2}}`, false},
		{"too many items", `{"tool":"answer","args":{"answer":"6","confidence":1,"citations":[{"kind":"row"},{"kind":"row"}]}}`, false},
		{"an unknown property", `{"tool":"answer","args":{"answer":"6","confidence":1,"why":"x"}}`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := allows(schema, c.completion)
			if (err == nil) != c.ok {
				t.Errorf("allows: %v, want ok %v", err, c.ok)
			}
		})
	}
}

// TestSplit_TheFileFollowsItsRule recomputes the held-out databases of
// training/agent_split.json from the dev data by the rule its about
// states.
func TestSplit_TheFileFollowsItsRule(t *testing.T) {
	data := benchmarks(t)
	sp, err := readSplit("../../training/agent_split.json")
	if err != nil {
		t.Fatal(err)
	}
	spider, err := sqlqa.Spider(data)
	if err != nil {
		t.Fatal(err)
	}
	kaggle, err := sqlqa.Kaggle(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []*sqlqa.Set{spider, kaggle} {
		want := heldOutByRule(sp.Seed, sp.Share, databases(s))
		if !slices.Equal(sp.HeldOut[s.Name], want) {
			t.Errorf("%s: the file holds out %v, the rule %v", s.Name, sp.HeldOut[s.Name], want)
		}
		if err := sp.check(s); err != nil {
			t.Error(err)
		}
		for _, db := range databases(s) {
			if got, held := sp.of(s.Name, db), slices.Contains(want, db); got == splitTrain && held || got == splitEval && !held {
				t.Errorf("%s %s: split %s", s.Name, db, got)
			}
		}
	}
	if n := len(sp.HeldOut["spider"]); n != 3 {
		t.Errorf("%d of Spider's dev databases held out, want 3", n)
	}
}

// TestRun_PairsAreTheLoopsTurns runs the generator on two small Spider
// databases, one of train and one held out, and reads what it wrote:
// each question's turns in order, the first prompt the loop's question
// and tool listing, the query's turn after the schema of its table, each
// completion one action of the offered tools, each prompt the one before
// it with its completion and the result added, and no held-out database
// in train.jsonl.
func TestRun_PairsAreTheLoopsTurns(t *testing.T) {
	data := benchmarks(t)
	t.Setenv("KGFORGE_CACHE_DIR", t.TempDir())
	spider, err := sqlqa.Spider(data)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	o := options{
		data: data, work: t.TempDir(), out: out, split: "../../training/agent_split.json", model: llm.ChatModelForTests,
		sets: "spider", dbs: "poker_player,real_estate_properties", look: true,
	}
	var summary strings.Builder
	if err := run(context.Background(), o, &summary); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + summary.String())
	sp, err := readSplit(o.split)
	if err != nil {
		t.Fatal(err)
	}
	tools := []string{agent.ToolLs, agent.ToolCat, agent.ToolSelect, agent.ToolAnswer}
	for _, split := range []string{splitTrain, splitEval} {
		pairs := readPairs(t, filepath.Join(out, split+".jsonl"))
		if len(pairs) == 0 {
			t.Fatalf("%s.jsonl: no pairs", split)
		}
		byQuestion := map[string][]pair{}
		for _, p := range pairs {
			if got := sp.of(p.Set, p.DB); got != split {
				t.Errorf("%s.jsonl holds %s of database %s, whose split is %s", split, p.QuestionID, p.DB, got)
			}
			byQuestion[p.QuestionID] = append(byQuestion[p.QuestionID], p)
		}
		for id, turns := range byQuestion {
			i, _ := strconv.Atoi(id[strings.LastIndex(id, "-")+1:])
			question := spider.Examples[i].Question
			first := turns[0].Prompt
			if turns[0].Turn != 1 || !strings.HasSuffix(first, "\nQuestion: "+question+"\nCall: ") || !strings.Contains(first, "\n- select(table, columns?, where?") {
				t.Errorf("%s: turn 1 is not the loop's first prompt for %q:\n%s", id, question, first[max(0, len(first)-300):])
			}
			var base string
			for k, p := range turns {
				if p.Turn != k+1 {
					t.Fatalf("%s: turn %d at place %d", id, p.Turn, k+1)
				}
				var act struct {
					Tool string          `json:"tool"`
					Args json.RawMessage `json:"args"`
				}
				if err := json.Unmarshal([]byte(p.Completion), &act); err != nil || !slices.Contains(tools, act.Tool) {
					t.Errorf("%s turn %d: completion %s is not an action of %v: %v", id, p.Turn, p.Completion, tools, err)
				}
				if act.Tool == agent.ToolSelect {
					var a selectArgs
					if err := json.Unmarshal(act.Args, &a); err != nil {
						t.Fatal(err)
					}
					base = a.Table
					if !strings.Contains(p.Prompt, "table "+base+": ") {
						t.Errorf("%s turn %d: the query's prompt does not show its table %s (cat)", id, p.Turn, base)
					}
				}
				if k > 0 && !strings.HasPrefix(p.Prompt, turns[k-1].Prompt+turns[k-1].Completion+"\nResult:\n<result tool=") {
					t.Errorf("%s turn %d: the prompt does not go on from the turn before", id, p.Turn)
				}
			}
			if last := turns[len(turns)-1].Completion; !strings.HasPrefix(last, `{"tool":"answer","args":{"answer":`) || base == "" {
				t.Errorf("%s: the turns end with %s, not an answer after a query", id, last)
			}
		}
	}
}

func readPairs(t *testing.T, path string) []pair {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() }) // read only
	var out []pair
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var p pair
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, p)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestRun_WithoutLooking: with -look=false a question is two turns, the
// typed query from the question's first prompt, then the answer.
func TestRun_WithoutLooking(t *testing.T) {
	data := benchmarks(t)
	t.Setenv("KGFORGE_CACHE_DIR", t.TempDir())
	out := t.TempDir()
	o := options{data: data, work: t.TempDir(), out: out, split: "../../training/agent_split.json", model: llm.ChatModelForTests, sets: "spider", dbs: "poker_player"}
	var summary strings.Builder
	if err := run(context.Background(), o, &summary); err != nil {
		t.Fatal(err)
	}
	pairs := readPairs(t, filepath.Join(out, splitTrain+".jsonl"))
	if len(pairs) == 0 {
		t.Fatalf("no pairs:\n%s", summary.String())
	}
	for _, p := range pairs {
		want := `{"tool":"select","args":{"table":`
		if p.Turn == 2 {
			want = `{"tool":"answer","args":{"answer":`
		}
		if p.Turn > 2 || !strings.HasPrefix(p.Completion, want) {
			t.Errorf("%s turn %d: %s, want a completion that starts %s", p.QuestionID, p.Turn, p.Completion, want)
		}
		_, log, _ := strings.Cut(p.Prompt, "\n### Log 3\n") // the question's own log, after the prompt's examples
		if p.Turn == 1 && (!strings.HasPrefix(log, "Question: ") || !strings.HasSuffix(log, "\nCall: ") || strings.Contains(log, "<result")) {
			t.Errorf("%s: turn 1 is not the question's first prompt", p.QuestionID)
		}
	}
	if leftover := readPairs(t, filepath.Join(out, splitEval+".jsonl")); len(leftover) != 0 {
		t.Errorf("eval.jsonl holds %d pairs of a train database", len(leftover))
	}
}

// TestTiedAtLimit_SkipsAGoldOfSeveral: in concert_singer two years have
// the most concerts, so "the year with the most" ordered with LIMIT 1 has
// two answers; the richest poker player has one.
func TestTiedAtLimit_SkipsAGoldOfSeveral(t *testing.T) {
	data := benchmarks(t)
	t.Setenv("KGFORGE_CACHE_DIR", t.TempDir())
	s, err := sqlqa.Spider(data)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ db, sql, want string }{
		{"concert_singer", `SELECT YEAR FROM concert GROUP BY YEAR ORDER BY count(*) DESC LIMIT 1`, "ties at the LIMIT: the gold result is one of several"},
		{"poker_player", `SELECT Money_Rank FROM poker_player ORDER BY Earnings DESC LIMIT 1`, ""},
	}
	o := options{work: t.TempDir(), model: llm.ChatModelForTests}
	for _, c := range cases {
		t.Run(c.db, func(t *testing.T) {
			q, err := openQuestioner(context.Background(), o, noModel(t), s, c.db)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				if err := q.close(); err != nil {
					t.Error(err)
				}
			})
			p, err := parseSQL(c.sql)
			if err != nil {
				t.Fatal(err)
			}
			conv, err := convert(p, q.sch, q.g.Table)
			if err != nil {
				t.Fatal(err)
			}
			got, err := q.tiedAtLimit(context.Background(), conv)
			if err != nil || got != c.want {
				t.Errorf("got %q, %v; want %q", got, err, c.want)
			}
		})
	}
}

// TestRun_ActionModelPrompts: with -action (the default of the command)
// the prompts are the action model's: the tables listed, no few-shot log,
// and one turn a question, the typed query (kgforge writes the answer
// from its result).
func TestRun_ActionModelPrompts(t *testing.T) {
	data := benchmarks(t)
	t.Setenv("KGFORGE_CACHE_DIR", t.TempDir())
	out := t.TempDir()
	o := options{data: data, work: t.TempDir(), out: out, split: "../../training/agent_split.json", model: "kgforge-agent", sets: "spider", dbs: "poker_player", action: true}
	var summary strings.Builder
	if err := run(context.Background(), o, &summary); err != nil {
		t.Fatal(err)
	}
	pairs := readPairs(t, filepath.Join(out, splitTrain+".jsonl"))
	if len(pairs) == 0 {
		t.Fatalf("no pairs:\n%s", summary.String())
	}
	for _, p := range pairs {
		if strings.Contains(p.Prompt, "### Log") || !strings.HasPrefix(p.Prompt, "Answer the question about the dataset") ||
			!strings.Contains(p.Prompt, "\n- poker_player_poker_player (") || !strings.HasSuffix(p.Prompt, "\nCall: ") {
			t.Errorf("%s turn %d: not the action model's prompt:\n%s", p.QuestionID, p.Turn, p.Prompt)
		}
		if want := `{"tool":"select","args":{"table":`; p.Turn != 1 || !strings.HasPrefix(p.Completion, want) {
			t.Errorf("%s turn %d: %s, want one turn, a completion that starts %s", p.QuestionID, p.Turn, p.Completion, want)
		}
	}
}
