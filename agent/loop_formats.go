package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"kgforge/llm"
)

// Bounds on one reply, in tokens: a call with its arguments, or an answer
// with citations.
const replyTokens = 512

// promptData is what the agent prompt's parts render.
type promptData struct {
	Tools    string // one line per offered tool: name, arguments, description
	Budget   int
	Format   string
	Question string
	Document string // how results quote the sources (DocumentNote)
	Context  string // Options.Context
	Tables   string // the action model's listing of the data tables (tableLines)
}

// newFormat builds the question's format; for the action model it also
// returns the values the question names, by table and column (linkValues).
func (a *Agent) newFormat(ctx context.Context, question string) (format, map[string][]string, error) {
	var linked map[string][]string
	d := promptData{Budget: a.opts.Budget, Format: a.opts.Format, Question: question, Document: DocumentNote, Context: a.opts.Context}
	if a.action { // the action model's prompt: the tools by name, the tables listed with the values the question names
		data, err := a.tools.b.Tables()
		if err != nil {
			return nil, nil, err
		}
		linked, err = a.tools.linkValues(ctx, data, question)
		if err != nil {
			return nil, nil, err
		}
		d.Tables, d.Tools = tableLines(data, question, linked), toolNameList(a.offer)
	} else {
		d.Tools = toolLines(a.offer)
	}
	if a.opts.Format == FormatCompletion {
		part := "completion"
		if a.action {
			part = "action"
		}
		prefix, err := a.prompt.RenderPart(part, d)
		if err != nil {
			return nil, nil, err
		}
		return &completionFormat{a: a, schema: actionSchema(a.offer), log: prefix}, linked, nil
	}
	system, err := a.prompt.RenderPart("system", d)
	if err != nil {
		return nil, nil, err
	}
	msgs := []llm.Message{{Role: "system", Content: system}, {Role: "user", Content: "Question: " + question}}
	if a.opts.Format == FormatNative {
		return &nativeFormat{a: a, msgs: msgs, specs: toolSpecs(a.offer)}, linked, nil
	}
	return &jsonFormat{a: a, msgs: msgs, schema: actionSchema(a.offer)}, linked, nil
}

// toolLines lists the tools for a prompt, one line each: the name, the
// arguments (optional ones marked ?) and the description's first
// sentence (brief). The schema itself constrains the reply and the prompt
// says once how results quote documents, so the listing stays short: every
// token of it is read again at the first turn of every question.
func toolLines(tools []Tool) string {
	var b strings.Builder
	for _, t := range tools {
		fmt.Fprintf(&b, "- %s(%s): %s\n", t.Name, strings.Join(argNames(t.Params), ", "), brief(t.Description))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// brief is a tool description up to the end of its first sentence or
// clause (". " or "; "), without the note on quoted document text
// (DocumentNote), ending in a full stop.
func brief(desc string) string {
	desc = strings.TrimSpace(strings.ReplaceAll(desc, DocumentNote, ""))
	for i := 0; i+1 < len(desc); i++ {
		if (desc[i] == '.' || desc[i] == ';') && desc[i+1] == ' ' {
			return desc[:i] + "."
		}
	}
	return desc
}

// argNames lists the properties of a parameters schema in their order,
// each optional one with a ? after it.
func argNames(params json.RawMessage) []string {
	var p struct {
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if json.Unmarshal(params, &p) != nil || len(p.Properties) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(p.Properties))
	if _, err := dec.Token(); err != nil { // {
		return nil
	}
	var names []string
	for dec.More() {
		tok, err := dec.Token()
		name, ok := tok.(string)
		var skip json.RawMessage
		if err != nil || !ok || dec.Decode(&skip) != nil {
			return names
		}
		if !slices.Contains(p.Required, name) {
			name += "?"
		}
		names = append(names, name)
	}
	return names
}

// oneLine is a reply as one line of the log: compacted JSON, or the text
// with its line breaks made spaces.
func oneLine(reply string) string {
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(reply)); err == nil {
		return b.String()
	}
	return strings.Join(strings.Fields(reply), " ")
}

func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}

func toolSpecs(tools []Tool) []llm.ToolSpec {
	specs := make([]llm.ToolSpec, len(tools))
	for i, t := range tools {
		specs[i] = llm.ToolSpec{Name: t.Name, Description: t.Description, Parameters: t.Params}
	}
	return specs
}

// actionSchema is the schema of one call in the JSON and completion
// formats: {"tool": NAME, "args": ARGS}, one branch per tool, each with
// that tool's parameters, so the model can only name a tool that exists
// and give it arguments of the right shape. It is written by hand, not
// from a map, to keep "tool" before "args": the server's grammar follows
// the order of the properties, and a model should name the tool first.
// Every string argument is bounded (boundStrings).
func actionSchema(tools []Tool) json.RawMessage {
	var b bytes.Buffer
	b.WriteString(`{"anyOf":[`)
	for i, t := range tools {
		params := t.Params
		if len(t.Grammar) > 0 {
			params = t.Grammar
		}
		if len(params) == 0 {
			params = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		name, _ := json.Marshal(t.Name) // a string always marshals
		params = boundStrings(params)
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"type":"object","required":["tool","args"],"properties":{"tool":{"type":"string","enum":[%s]},"args":%s}}`, name, compact(params))
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

// parseAction reads one {"tool": NAME, "args": {...}} reply. A reply that
// is not one becomes a malformed action that says how to reply.
func parseAction(reply, doneReason string) action {
	var c struct {
		Tool string          `json:"tool"`
		Args json.RawMessage `json:"args"`
	}
	err := json.Unmarshal([]byte(strings.TrimSpace(reply)), &c)
	if err == nil && c.Tool != "" {
		return action{tool: c.Tool, args: c.Args}
	}
	if doneReason == llm.DoneIncomplete {
		return action{tool: "(reply)", args: json.RawMessage("{}"), err: runawayError(reply, true)}
	}
	msg := "the reply is not one JSON object with a tool name"
	switch {
	case doneReason == "length":
		msg = "the reply was cut at the output bound before it ended"
	case err != nil:
		msg += ": " + err.Error()
	}
	return action{tool: "(reply)", args: json.RawMessage("{}"), err: &CallError{
		Kind: FailMalformed, Msg: msg, Hint: `reply with one JSON object {"tool": NAME, "args": {...}}, for example {"tool": "ls", "args": {}}`,
	}}
}

// completionStops end a completion reply: at the next entry of the log,
// or at a runaway argument (runawayStops).
var completionStops = append([]string{"\nResult:", "\nCall:", "\nQuestion:"}, runawayStops()...)

// nativeFormat is Ollama's native tool calling.
type nativeFormat struct {
	a     *Agent
	msgs  []llm.Message
	specs []llm.ToolSpec
}

func (f *nativeFormat) next(ctx context.Context, o turnOptions) (turn, error) {
	resp, err := f.a.llm.Chat(ctx, llm.ChatRequest{
		Model: f.a.opts.Model, Messages: f.msgs, Tools: f.specs, NumPredict: replyTokens, NumCtx: f.a.opts.NumCtx, Temperature: o.temperature,
	})
	if err != nil {
		return turn{}, err
	}
	f.msgs = append(f.msgs, llm.Message{Role: "assistant", Content: resp.Content, ToolCalls: resp.ToolCalls})
	t := turn{resp: resp}
	for _, tc := range resp.ToolCalls {
		t.actions = append(t.actions, action{tool: tc.Name, args: tc.Arguments, native: true})
	}
	if len(t.actions) == 0 {
		t.actions = []action{{tool: "(reply)", args: json.RawMessage("{}"), err: &CallError{
			Kind: FailMalformed, Msg: "the reply called no tool", Hint: "call one of the tools; give the final answer by calling answer",
		}}}
	}
	return t, nil
}

func (f *nativeFormat) observe(act action, text string) {
	if act.native {
		f.msgs = append(f.msgs, llm.Message{Role: "tool", ToolName: act.tool, Content: text})
		return
	}
	f.msgs = append(f.msgs, llm.Message{Role: "user", Content: text})
}

// jsonFormat is one JSON action per chat turn, constrained by a schema.
type jsonFormat struct {
	a      *Agent
	msgs   []llm.Message
	schema json.RawMessage
}

func (f *jsonFormat) next(ctx context.Context, o turnOptions) (turn, error) {
	resp, err := f.a.llm.Chat(ctx, llm.ChatRequest{
		Model: f.a.opts.Model, Messages: f.msgs, Schema: o.schemaOr(f.schema), NumPredict: replyTokens, NumCtx: f.a.opts.NumCtx, Temperature: o.temperature,
	})
	if err != nil {
		return turn{}, err
	}
	f.msgs = append(f.msgs, llm.Message{Role: "assistant", Content: resp.Content})
	return turn{resp: resp, actions: []action{parseAction(resp.Content, resp.DoneReason)}}, nil
}

func (f *jsonFormat) observe(_ action, text string) {
	f.msgs = append(f.msgs, llm.Message{Role: "user", Content: text})
}

// completionFormat continues a few-shot log of calls and results through
// raw completion: the prompt part "completion" shows the tools and a few
// logs over made-up datasets, then the question; each turn the model
// writes the next call after "Call: ", constrained by the action schema.
type completionFormat struct {
	a      *Agent
	schema json.RawMessage
	log    string
	// call is the log up to the last turn's "Call: ", for sample and
	// replace.
	call string
}

func (f *completionFormat) next(ctx context.Context, o turnOptions) (turn, error) {
	f.log += "Call: "
	f.call = f.log
	// The log probabilities give the confidence of an answer written
	// from the query's result (resultAnswer).
	resp, err := f.generate(ctx, o, 0, f.a.action)
	if err != nil {
		return turn{}, err
	}
	f.log += oneLine(resp.Content) + "\n"
	act := parseAction(resp.Content, resp.DoneReason)
	if act.err != nil && resp.DoneReason == "stop" && strings.HasPrefix(strings.TrimSpace(resp.Content), "{") {
		// The grammar ends a reply only after a whole object, so a stop
		// sequence ended this one: a runaway argument (runawayStops).
		act.err = runawayError(resp.Content, false)
	}
	return turn{resp: resp, actions: []action{act}}, nil
}

// sample draws another reply to the last turn's prompt at o's
// temperature with seed; the log is left as it is.
func (f *completionFormat) sample(ctx context.Context, o turnOptions, seed int) (string, llm.ChatResponse, error) {
	resp, err := f.generate(ctx, o, seed, false)
	if err != nil {
		return "", llm.ChatResponse{}, err
	}
	return resp.Content, resp, nil
}

// generate asks for a reply to the log up to the last turn's "Call: ",
// constrained by the turn's action schema: the one request of next and
// sample.
func (f *completionFormat) generate(ctx context.Context, o turnOptions, seed int, logprobs bool) (llm.ChatResponse, error) {
	return f.a.llm.Generate(ctx, llm.GenerateRequest{
		Model: f.a.opts.Model, Prompt: f.call, Raw: true, Schema: o.schemaOr(f.schema), Stop: completionStops,
		NumPredict: replyTokens, NumCtx: f.a.opts.NumCtx, Temperature: o.temperature, Seed: seed, Logprobs: logprobs,
	})
}

// replace puts reply in the place of the last turn's.
func (f *completionFormat) replace(reply string) { f.log = f.call + oneLine(reply) + "\n" }

func (f *completionFormat) observe(_ action, text string) {
	f.log += "Result:\n" + text + "\n"
}
