package llm

import (
	"encoding/json"
	"fmt"

	"github.com/ollama/ollama/api"
)

// ToolSpec describes one tool offered for native tool calling.
type ToolSpec struct {
	Name        string
	Description string
	Parameters  json.RawMessage // JSON schema of the arguments object
}

// ToolCall is one native tool call in a reply.
type ToolCall struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"` // a JSON object
}

func apiTools(specs []ToolSpec) (api.Tools, error) {
	var out api.Tools
	for _, s := range specs {
		var params api.ToolFunctionParameters
		if len(s.Parameters) > 0 {
			if err := json.Unmarshal(s.Parameters, &params); err != nil {
				return nil, fmt.Errorf("tool %s: parameters are not a JSON schema object: %w", s.Name, err)
			}
		}
		if params.Type == "" {
			params.Type = "object"
		}
		if params.Properties == nil {
			params.Properties = api.NewToolPropertiesMap()
		}
		out = append(out, api.Tool{Type: "function", Function: api.ToolFunction{Name: s.Name, Description: s.Description, Parameters: params}})
	}
	return out, nil
}

func apiMessages(in []Message) ([]api.Message, error) {
	out := make([]api.Message, len(in))
	for i, m := range in {
		out[i] = api.Message{Role: m.Role, Content: m.Content, ToolName: m.ToolName}
		for _, tc := range m.ToolCalls {
			args := api.NewToolCallFunctionArguments()
			if len(tc.Arguments) > 0 {
				if err := json.Unmarshal(tc.Arguments, &args); err != nil {
					return nil, fmt.Errorf("message %d: tool call %s: arguments are not a JSON object: %w", i, tc.Name, err)
				}
			}
			out[i].ToolCalls = append(out[i].ToolCalls, api.ToolCall{Function: api.ToolCallFunction{Name: tc.Name, Arguments: args}})
		}
	}
	return out, nil
}

func toolCallOf(tc api.ToolCall) ToolCall {
	args, err := json.Marshal(tc.Function.Arguments)
	if err != nil || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	return ToolCall{Name: tc.Function.Name, Arguments: args}
}
