package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"

	"kgforge/agent"
	"kgforge/bench/internal/sqlqa"
	"kgforge/kg"
	"kgforge/llm"
)

type options struct {
	data, work, out, split, model, sets string
	dbs                                 string
	perDB, synthDBs                     int
	synthSeed                           uint64
	look, verbose, action               bool
}

func main() {
	var o options
	flag.StringVar(&o.data, "data", "../shared/benchmarks", "the benchmark dev data (sql-qa/spider, sql-qa/kaggle-dbqa)")
	flag.StringVar(&o.work, "work", "", "directory for the built bundles (default: a new temporary one)")
	flag.StringVar(&o.out, "out", "", "directory for train.jsonl and eval.jsonl (required)")
	flag.StringVar(&o.split, "split", "training/agent_split.json", "the databases held out for evaluation")
	flag.StringVar(&o.sets, "sets", "spider,kaggle", "sets, comma-separated: spider, kaggle, synthetic")
	flag.IntVar(&o.synthDBs, "synthetic-dbs", synthDefaultDBs, "the synthetic set's number of databases")
	flag.Uint64Var(&o.synthSeed, "synthetic-seed", synthDefaultSeed, "the seed the synthetic set is made from")
	flag.StringVar(&o.model, "model", llm.ChatModelForTests, "the model the prompts are for (named in agent.Options, as kgforge ask --model does)")
	flag.StringVar(&o.dbs, "dbs", "", "only these databases, comma-separated (default: every database of the sets)")
	flag.IntVar(&o.perDB, "per-db", 0, "most questions per database (0: all)")
	flag.BoolVar(&o.action, "action", true, "the prompts of kgforge's action model (agent.ActionPrompt: the tables listed in the prompt); false: the few-shot log of a base model")
	flag.BoolVar(&o.look, "look", false, "look before the query: ls, then cat of each table the query reads, as the few-shot log's own example does")
	flag.BoolVar(&o.verbose, "v", false, "print each skipped question, its reason and its gold SQL on stderr")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, o, os.Stdout)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "agenttraj:", err)
		os.Exit(1)
	}
}

// pair is one line of train.jsonl or eval.jsonl: one turn of the agent
// loop, the prompt it sent and the completion the model should give.
type pair struct {
	Set        string `json:"set"`
	DB         string `json:"db"`
	QuestionID string `json:"question_id"`
	Turn       int    `json:"turn"`
	Prompt     string `json:"prompt"`
	Completion string `json:"completion"`
}

// tally counts one set and split's questions.
type tally struct {
	seen, converted, verified, written, pairs int
	skipped                                   map[string]int
}

func run(ctx context.Context, o options, stdout io.Writer) (err error) {
	if o.out == "" {
		return errors.New("-out: give the directory for train.jsonl and eval.jsonl")
	}
	sp, err := readSplit(o.split)
	if err != nil {
		return err
	}
	if o.work == "" {
		if o.work, err = os.MkdirTemp("", "agenttraj-"); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	w, err := newWriters(o.out)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, w.close(err == nil)) }()
	// The builds ask no model (extraction and embeddings are off), so the
	// client is never called; it only fills the runner's field.
	client, err := llm.New(llm.Options{})
	if err != nil {
		return err
	}
	defer client.Close()
	tallies := map[string]*tally{}
	var order, done []string
	for _, name := range strings.Split(o.sets, ",") {
		name = strings.TrimSpace(name)
		var s *sqlqa.Set
		switch name {
		case "spider":
			s, err = sqlqa.Spider(o.data)
		case "kaggle":
			s, err = sqlqa.Kaggle(o.data)
		case synthSetName:
			s, err = synthSet(o.synthSeed, o.synthDBs, filepath.Join(o.work, "synthetic-src"))
			if err == nil {
				sp.holdOutSynthetic(s)
			}
		default:
			return fmt.Errorf("-sets: unknown set %q: the sets are spider, kaggle, synthetic", name)
		}
		if err != nil {
			return err
		}
		if err := sp.check(s); err != nil {
			return err
		}
		for _, db := range databases(s) {
			if o.dbs != "" && !slices.Contains(strings.Split(o.dbs, ","), db) {
				continue
			}
			done = append(done, db)
			split := sp.of(s.Name, db)
			key := s.Name + "\t" + split
			if tallies[key] == nil {
				tallies[key] = &tally{skipped: map[string]int{}}
				order = append(order, key)
			}
			if err := runDB(ctx, o, client, s, db, w.to(split), tallies[key]); err != nil {
				return fmt.Errorf("set %s database %s: %w", s.Name, db, err)
			}
		}
	}
	for _, db := range strings.Split(o.dbs, ",") {
		if o.dbs != "" && !slices.Contains(done, db) {
			return fmt.Errorf("-dbs: no set of %s has database %q", o.sets, db)
		}
	}
	if err := writeHeldOut(o.out, sp, order); err != nil {
		return err
	}
	return summary(stdout, order, tallies)
}

// heldOutFile names, beside train.jsonl and eval.jsonl, the databases the
// run held out: the split file's, and for the synthetic set those the
// rule picked among the databases this run made (another seed or number
// than the default set's), which the split file cannot list. kgtrain's
// prepare checks the pairs against it as well as against the split file.
const heldOutFile = "heldout.json"

// writeHeldOut writes heldOutFile for the sets of keys (set + "\t" +
// split, as the tallies are kept).
func writeHeldOut(dir string, sp *split, keys []string) error {
	held := map[string][]string{}
	for _, k := range keys {
		set, _, _ := strings.Cut(k, "\t")
		held[set] = slices.Sorted(slices.Values(sp.HeldOut[set]))
	}
	raw, err := json.MarshalIndent(struct {
		About   string              `json:"about"`
		HeldOut map[string][]string `json:"heldout"`
	}{"the databases this run of bench/agenttraj held out (eval.jsonl): the split file's and, for the synthetic set, those its rule picked among the databases made", held}, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, heldOutFile), append(raw, '\n'), 0o644)
}

// databases lists a set's databases in the order their first question
// comes.
func databases(s *sqlqa.Set) []string {
	var out []string
	for _, e := range s.Examples {
		if !slices.Contains(out, e.DB) {
			out = append(out, e.DB)
		}
	}
	return out
}

// runDB builds one database's bundle, opens the agent on it with the
// oracle as its model, and writes the pairs of every question whose
// gold SQL becomes a verified typed query.
func runDB(ctx context.Context, o options, client *llm.Client, s *sqlqa.Set, db string, out *json.Encoder, t *tally) (err error) {
	q, err := openQuestioner(ctx, o, client, s, db)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, q.close()) }()
	n := 0
	for i, e := range s.Examples {
		if e.DB != db {
			continue
		}
		if n++; o.perDB > 0 && n > o.perDB {
			break
		}
		t.seen++
		pairs, stage, reason, err := q.trajectory(ctx, e)
		if err != nil {
			return fmt.Errorf("question %d: %w", i, err)
		}
		if stage >= stageConverted {
			t.converted++
		}
		if stage >= stageVerified {
			t.verified++
		}
		if reason != "" {
			t.skipped[reason]++
			if o.verbose {
				fmt.Fprintf(os.Stderr, "%s-%s-%d\t%s\t%s\n", s.Name, db, i, reason, e.Query)
			}
			continue
		}
		t.written++
		for k, p := range pairs {
			if err := out.Encode(pair{Set: s.Name, DB: db, QuestionID: fmt.Sprintf("%s-%s-%d", s.Name, db, i), Turn: k + 1, Prompt: p.prompt, Completion: p.completion}); err != nil {
				return err
			}
			t.pairs++
		}
	}
	return nil
}

// How far a question got.
const (
	stageSeen = iota
	stageConverted
	stageVerified
)

// questioner makes the trajectories of one database's questions.
type questioner struct {
	o   options
	a   *agent.Agent
	or  *oracle
	g   *sqlqa.Gold
	sch *schema
}

// openQuestioner builds one database's bundle (in -work) and opens the
// agent on it with the oracle as its model. close releases both.
func openQuestioner(ctx context.Context, o options, client *llm.Client, s *sqlqa.Set, db string) (_ *questioner, err error) {
	g, err := sqlqa.OpenGold(ctx, sqlqa.Build{Model: o.model}, client, filepath.Join(o.work, s.Name, db), s.DBFile(db), s.Docs[db])
	if err != nil {
		return nil, err
	}
	or := &oracle{model: o.model, action: o.action}
	// The options of kgforge ask --model gemma3:270m: the format and the
	// ids are settled by agent.New from the model's metadata (completion,
	// ids seen), the budget is the default.
	a, err := agent.New(ctx, or, g.Bundle(), agent.Options{Model: o.model, Budget: agent.DefaultBudget, NoPassages: true})
	if err != nil {
		return nil, errors.Join(err, g.Close())
	}
	q := &questioner{o: o, a: a, or: or, g: g}
	defer func() {
		if err != nil {
			err = errors.Join(err, q.close())
		}
	}()
	if a.Format() != agent.FormatCompletion {
		return nil, fmt.Errorf("agent format %s: the pairs are for the completion format", a.Format())
	}
	tables, err := g.Bundle().Tables()
	if err != nil {
		return nil, err
	}
	sel, ok := a.Toolbox().Tool(agent.ToolSelect)
	if !ok {
		return nil, errors.New("the bundle has no data table, so no select tool")
	}
	if q.sch, err = newSchema(tables, sel.Grammar); err != nil {
		return nil, err
	}
	return q, nil
}

func (q *questioner) close() error { return errors.Join(q.a.Close(), q.g.Close()) }

// trajectory converts one question's gold SQL, checks the typed query
// gives the gold result, and runs the agent loop with the oracle's plan:
// the turns recorded, how far the question got and, for a question
// skipped, why. The error is for what stops the run.
func (q *questioner) trajectory(ctx context.Context, e sqlqa.Example) ([]turn, int, string, error) {
	p, err := parseSQL(e.Query)
	if err != nil {
		return nil, stageSeen, err.Error(), nil
	}
	c, err := convert(p, q.sch, q.g.Table)
	if err != nil {
		return nil, stageSeen, err.Error(), nil
	}
	_, gold, truncated, err := q.g.Query(ctx, q.g.Rewrite(e.Query), agent.MaxRows)
	switch {
	case ctx.Err() != nil:
		return nil, stageConverted, "", ctx.Err()
	case err != nil:
		return nil, stageConverted, "gold SQL fails over the bundle", nil
	case truncated:
		return nil, stageConverted, fmt.Sprintf("gold result over %d rows", agent.MaxRows), nil
	}
	selectCall, err := marshal(c.args)
	if err != nil {
		return nil, stageConverted, "", err
	}
	out, err := q.a.Toolbox().Call(ctx, agent.ToolSelect, json.RawMessage(selectCall))
	if ce := (*agent.CallError)(nil); errors.As(err, &ce) {
		return nil, stageConverted, "typed query fails: " + ce.Kind, nil
	} else if err != nil {
		return nil, stageConverted, "", err
	}
	rows, ok := resultRows(out)
	if !ok {
		return nil, stageConverted, "typed query's result cut or over its rows", nil
	}
	got, ok := project(rows, c.perm)
	for _, r := range gold {
		for j := range r {
			r[j] = cellText.Replace(r[j])
		}
	}
	// Ties first: where they make the result one of several, which one
	// each query gives is the engine's choice. Otherwise both are ordered
	// by the same key when the SQL orders them, so the same rows in
	// another order differ only among ties.
	if reason, err := q.tiedAtLimit(ctx, c); err != nil || reason != "" {
		return nil, stageConverted, reason, err
	}
	if !ok || !sameRows(got, gold) {
		return nil, stageConverted, "typed query's result differs from the gold result", nil
	}
	plan, reason, err := q.plan(ctx, c, got, selectCall)
	if err != nil || reason != "" {
		return nil, stageVerified, reason, err
	}
	q.or.start(plan)
	ans, err := q.a.Ask(ctx, e.Question)
	switch {
	case ctx.Err() != nil:
		return nil, stageVerified, "", ctx.Err()
	case errors.Is(err, errUnplanned):
		return nil, stageVerified, "the loop refused an action: " + failed(ans), nil
	case err != nil:
		return nil, stageVerified, "", err
	case !ans.Answered:
		return nil, stageVerified, "the loop ended without the answer: " + failed(ans), nil
	case len(q.or.turns) != len(plan):
		return nil, stageVerified, "the loop took another number of turns than planned", nil
	case q.o.action && ans.Steps[len(ans.Steps)-1].By != agent.StepByKgforge:
		return nil, stageVerified, "the answer is not the one kgforge writes from the result", nil
	}
	for _, t := range q.or.turns {
		if err := allows(t.schema, t.completion); err != nil {
			var act struct{ Tool string }
			_ = json.Unmarshal([]byte(t.completion), &act) // the oracle wrote it
			return nil, stageVerified, "the turn's grammar refuses the oracle's " + act.Tool, nil
		}
	}
	return q.or.turns, stageVerified, "", nil
}

// tiedAtLimit says why a query ordered with a LIMIT has no one result:
// the first row past the limit ties with the last row within it on the
// order key, so which of them the result holds is the engine's choice
// (the gold SQL's as much as the typed query's). "" when it has one.
func (q *questioner) tiedAtLimit(ctx context.Context, c conversion) (string, error) {
	o := c.args.OrderBy
	if o == nil || c.args.Limit == 0 {
		return "", nil
	}
	const unknown = "ordered with a LIMIT, ties not checkable"
	if c.args.Limit >= agent.MaxRows {
		return unknown, nil
	}
	probe := c.args
	probe.Limit++
	out := slices.Clone(c.args.Columns)
	for _, g := range c.args.GroupBy {
		if !slices.Contains(out, g) {
			out = append(out, g)
		}
	}
	key := slices.Index(out, o.Column)
	switch {
	case o.Column == "aggregate":
		key = len(out)
	case key >= 0:
	case len(c.args.Columns) == 0 && c.args.Aggregate == nil && len(c.args.GroupBy) == 0: // the table's columns
		base, _ := q.sch.table(c.args.Table)
		key = slices.IndexFunc(base.Columns, func(col kg.Column) bool { return col.Name == o.Column })
	case c.args.Aggregate == nil && len(c.args.GroupBy) == 0 && len(c.args.Columns) < maxSelectItems:
		probe.Columns = append(slices.Clone(c.args.Columns), o.Column)
		key = len(probe.Columns) - 1
	}
	if key < 0 {
		return unknown, nil
	}
	args, err := marshal(probe)
	if err != nil {
		return "", err
	}
	res, err := q.a.Toolbox().Call(ctx, agent.ToolSelect, json.RawMessage(args))
	if ce := (*agent.CallError)(nil); errors.As(err, &ce) {
		return unknown, nil
	} else if err != nil {
		return "", err
	}
	rows, ok := resultRows(res)
	n := c.args.Limit
	switch {
	case !ok:
		return unknown, nil
	case len(rows) > n && key < len(rows[n]) && key < len(rows[n-1]) && rows[n][key] == rows[n-1][key]:
		return "ties at the LIMIT: the gold result is one of several", nil
	}
	return "", nil
}

// failed names the first failed call of an answer: its tool and kind.
func failed(ans agent.Answer) string {
	for _, s := range ans.Steps {
		if s.ErrorKind != "" {
			return s.Tool + " " + s.ErrorKind
		}
	}
	return "none failed"
}

// plan is the oracle's actions for one question: with -look, ls and then
// cat of each table the query reads (as the prompt's own example does),
// then the typed query, then the answer with the result's values and,
// where the result shows the base table's key, its rows as citations;
// for kgforge's action model (-action) no answer, which kgforge writes
// from the query's result itself.
func (q *questioner) plan(ctx context.Context, c conversion, rows [][]string, selectCall string) ([]string, string, error) {
	var plan []string
	add := func(tool string, args any) error {
		s, err := marshal(action{Tool: tool, Args: args})
		plan = append(plan, s)
		return err
	}
	if q.o.look {
		if err := add(agent.ToolLs, struct{}{}); err != nil {
			return nil, "", err
		}
		for _, t := range c.tables {
			if err := add(agent.ToolCat, map[string]string{"id": t}); err != nil {
				return nil, "", err
			}
		}
	}
	plan = append(plan, `{"tool":"select","args":`+selectCall+`}`)
	ans := answerArgs{Answer: agent.ResultAnswerText(rows), Confidence: answerConfidence, Citations: q.citations(c, rows)}
	if empty(rows) {
		return nil, "the result's values are all empty", nil
	}
	if n := len([]rune(ans.Answer)); n > maxAnswerRunes {
		return nil, fmt.Sprintf("answer over %d characters", maxAnswerRunes), nil
	}
	if q.o.action {
		return plan, "", nil // kgforge writes the action model's answer from the result
	}
	if len(ans.Citations) > 0 {
		aa := agent.AnswerArgs{Answer: ans.Answer, Confidence: ans.Confidence}
		for _, ci := range ans.Citations {
			aa.Citations = append(aa.Citations, agent.Citation{Kind: ci.Kind, ID: ci.ID, Table: ci.Table})
		}
		if _, err := q.a.Toolbox().CheckAnswer(ctx, aa); err != nil {
			if ce := (*agent.CallError)(nil); !errors.As(err, &ce) {
				return nil, "", err
			}
			ans.Citations = nil // a key the tool cannot find: cite nothing rather than a row it refuses
		}
	}
	if err := add(agent.ToolAnswer, ans); err != nil {
		return nil, "", err
	}
	return plan, "", nil
}

// empty reports whether rows has rows and every value of them is empty
// (a NULL shows as nothing): there is no answer to write.
func empty(rows [][]string) bool {
	for _, r := range rows {
		for _, v := range r {
			if strings.TrimSpace(v) != "" {
				return false
			}
		}
	}
	return len(rows) > 0
}

// citations cites the rows of a result that shows a key column of the
// base table, and no aggregate or group: {"kind":"row","id":KEY,
// "table":BASE} per row, at most maxCitations.
func (q *questioner) citations(c conversion, rows [][]string) []citation {
	if c.args.Aggregate != nil || len(c.args.GroupBy) > 0 || c.keys == nil {
		return nil
	}
	base, _ := q.sch.table(c.args.Table)
	col := slices.IndexFunc(c.keys, func(k string) bool { return slices.Contains(base.PrimaryKeys, k) })
	if col < 0 {
		return nil
	}
	var out []citation
	for _, r := range rows {
		if len(out) == maxCitations {
			break
		}
		if id := r[col]; id != "" && !slices.ContainsFunc(out, func(x citation) bool { return x.ID == id }) {
			out = append(out, citation{Kind: "row", ID: id, Table: base.Name})
		}
	}
	return out
}

// summary prints per set and split what came of the questions.
func summary(w io.Writer, order []string, tallies map[string]*tally) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%-9s %-6s %9s %9s %9s %8s %6s\n", "set", "split", "questions", "converted", "verified", "written", "pairs")
	for _, k := range order {
		t := tallies[k]
		set, split, _ := strings.Cut(k, "\t")
		fmt.Fprintf(&b, "%-9s %-6s %9d %9d %9d %8d %6d\n", set, split, t.seen, t.converted, t.verified, t.written, t.pairs)
	}
	for _, k := range order {
		t := tallies[k]
		if len(t.skipped) == 0 {
			continue
		}
		set, split, _ := strings.Cut(k, "\t")
		fmt.Fprintf(&b, "\n%s %s, skipped:\n", set, split)
		reasons := make([]string, 0, len(t.skipped))
		for r := range t.skipped {
			reasons = append(reasons, r)
		}
		slices.SortFunc(reasons, func(x, y string) int {
			if d := t.skipped[y] - t.skipped[x]; d != 0 {
				return d
			}
			return strings.Compare(x, y)
		})
		for _, r := range reasons {
			fmt.Fprintf(&b, "  %4d  %s\n", t.skipped[r], r)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writers are train.jsonl and eval.jsonl, written to temporary files
// and renamed into place only when the run ends well.
type writers struct {
	dir   string
	files map[string]*os.File
	encs  map[string]*json.Encoder
}

func newWriters(dir string) (*writers, error) {
	w := &writers{dir: dir, files: map[string]*os.File{}, encs: map[string]*json.Encoder{}}
	for _, split := range []string{splitTrain, splitEval} {
		f, err := os.CreateTemp(dir, "."+split+"-*.jsonl")
		if err != nil {
			return nil, errors.Join(err, w.close(false))
		}
		w.files[split] = f
		enc := json.NewEncoder(f)
		enc.SetEscapeHTML(false)
		w.encs[split] = enc
	}
	return w, nil
}

func (w *writers) to(split string) *json.Encoder { return w.encs[split] }

// close closes both files and renames them into place (commit), or
// removes them.
func (w *writers) close(commit bool) error {
	var errs []error
	for split, f := range w.files {
		err := f.Close()
		errs = append(errs, err)
		if commit && err == nil {
			errs = append(errs, os.Rename(f.Name(), filepath.Join(w.dir, split+".jsonl")))
		} else {
			errs = append(errs, os.Remove(f.Name()))
		}
	}
	return errors.Join(errs...)
}
