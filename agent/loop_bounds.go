package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// Bounds on the string arguments of a call in the action grammar, in
// characters. Ollama 0.17.4 turns a schema's maxLength into a bounded
// repetition of the grammar's character rule (llama.cpp
// json-schema-to-grammar), so a model cannot write a longer string: a base
// model that runs away in an argument (`"id":"s1000000…`) must close it.
// The SQL bound is tight on purpose: the bundled model wrote a SELECT of
// ever new conditions until the reply's 512 tokens, 10 minutes of a turn
// on a loaded CPU.
const (
	maxArgLen  = 200  // ids, names, patterns, search words, labels, table names
	maxSQLLen  = 500  // one SELECT: the longest gold SQL of the example is 455, of Spider dev 422
	maxTextLen = 1000 // an answer, a thought
)

// argBound is the bound of a string argument by its property name.
func argBound(name string) int {
	switch name {
	case "sql":
		return maxSQLLen
	case "answer", "thought":
		return maxTextLen
	}
	return maxArgLen
}

// runawayRun is how many equal characters in a row end a completion reply.
// Ollama cuts a reply after 30 equal tokens and then sends no final message
// (no token counts, llm.DoneIncomplete); gemma3 writes a digit per token,
// so a run of zeros reaches that cut within a bound of 200 characters. A
// stop sequence ends such a run sooner, with the server's counts.
const runawayRun = 12

// runawayStops are the completion format's stop sequences for runaway
// arguments: each digit, and the space, repeated runawayRun times. A
// bundle id (32 hex digits), a name or a SELECT does not hold one.
func runawayStops() []string {
	stops := make([]string, 0, 11)
	for _, c := range "0123456789 " {
		stops = append(stops, strings.Repeat(string(c), runawayRun))
	}
	return stops
}

// boundStrings returns a JSON schema with a maxLength on every string
// property (argBound of its name) that has neither a maxLength nor an
// enum, in objects and in array items at any depth. The order of
// properties is kept: the server's grammar follows it.
func boundStrings(schema json.RawMessage) json.RawMessage {
	return boundNode(schema, "")
}

func boundNode(raw json.RawMessage, name string) json.RawMessage {
	keys, vals, ok := orderedObject(raw)
	if !ok {
		return raw
	}
	for i, k := range keys {
		switch k {
		case "properties":
			pk, pv, ok := orderedObject(vals[i])
			if !ok {
				continue
			}
			for j := range pk {
				pv[j] = boundNode(pv[j], pk[j])
			}
			vals[i] = writeObject(pk, pv)
		case "items":
			vals[i] = boundNode(vals[i], name)
		}
	}
	if string(field(keys, vals, "type")) == `"string"` && field(keys, vals, "maxLength") == nil && field(keys, vals, "enum") == nil {
		keys = append(keys, "maxLength")
		vals = append(vals, json.RawMessage(fmt.Sprint(argBound(name))))
	}
	return writeObject(keys, vals)
}

// orderedObject splits a JSON object into its keys and values in order.
func orderedObject(raw json.RawMessage) ([]string, []json.RawMessage, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, nil, false
	}
	var keys []string
	var vals []json.RawMessage
	for dec.More() {
		tok, err := dec.Token()
		k, isKey := tok.(string)
		var v json.RawMessage
		if err != nil || !isKey || dec.Decode(&v) != nil {
			return nil, nil, false
		}
		keys, vals = append(keys, k), append(vals, v)
	}
	return keys, vals, true
}

func writeObject(keys []string, vals []json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		name, _ := json.Marshal(k) // a string always marshals
		b.Write(name)
		b.WriteByte(':')
		b.WriteString(compact(vals[i]))
	}
	b.WriteByte('}')
	return b.Bytes()
}

func field(keys []string, vals []json.RawMessage, name string) json.RawMessage {
	for i, k := range keys {
		if k == name {
			return vals[i]
		}
	}
	return nil
}

// replyTool finds the tool a cut reply named, or "".
var replyTool = regexp.MustCompile(`^\s*\{\s*"tool"\s*:\s*"([^"]{1,40})"`)

// runawayError is the malformed call of a reply that ran away in one
// argument: stopped at a run of one character (runawayStops) or cut by the
// server. It does not quote the reply: a base model continues a quoted
// argument with the message that follows it (measured: the next call's id
// was "s1 (call cat again with a short argument …").
func runawayError(reply string, cut bool) *CallError {
	how := "stopped at one character repeated"
	if cut {
		how = "cut by the server at one token repeated"
	}
	tool := "the tool"
	if m := replyTool.FindStringSubmatch(reply); m != nil {
		tool = m[1]
	}
	return &CallError{
		Kind: FailMalformed, Msg: fmt.Sprintf("the call of %s ran away in an argument and was %s", tool, how),
		Hint: fmt.Sprintf("an id is at most %d characters: copy one from a result of ls, grep or sems, or call ls with no arguments", maxArgLen),
	}
}
