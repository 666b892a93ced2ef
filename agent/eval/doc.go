// Package eval is the agent's evaluation harness: question sets with gold
// answers (LoadQuestions), deterministic scoring (Score: numbers within a
// rounding tolerance, percentages whatever their scale, booleans, lists as
// sets, tables by recall of gold rows), the two baselines the kgforge agent
// is measured against on the same model (a full-context agent and a
// SQL-only agent, both on the agent's Toolbox), a run over every question
// for every agent (Run), and the report: accuracy with bootstrap intervals,
// paired bootstrap differences between agents, tool calls, failed calls by
// tool and kind, and unique input tokens per question.
package eval
