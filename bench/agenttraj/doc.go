// Command agenttraj writes training data for an action model: the
// (prompt, completion) pairs that kgforge's agent sends to its action
// model (kgforge-agent: the completion format with the prompt
// agent.ActionPrompt, which lists the data tables; -action=false: the
// few-shot log of a base model such as gemma3:270m) and should receive
// back, one pair per turn, made from the
// text-to-SQL dev sets in ../shared/benchmarks/sql-qa (Spider's dev
// databases, KaggleDBQA's) and from a synthetic set it makes itself. It
// trains nothing.
//
// For each database it builds a bundle with kgforge's own build (no
// extraction, as bench/agentq does), and for each question turns the gold
// SQL into the agent's typed query (the select tool) where the subset it
// can say allows: one table or tables one foreign key from it, plain
// columns or one aggregate, AND of comparisons, LIKE '%text%' and
// BETWEEN, GROUP BY, one ORDER BY key, LIMIT. A question is kept when the
// typed query's result holds the rows of the gold SQL's over the bundle
// (both ordered by the same key, so they differ at most in the order of
// ties), and, ordered with a LIMIT, no tie at the limit makes the gold
// result one of several. Then the real agent loop, with the options
// kgforge ask takes for the model, runs the question against an oracle
// that stands in for the model: it records every prompt and replies with
// the planned actions: the typed query from the question's first prompt
// (the action model's prompt lists the tables), then the answer with the
// result's values, citing the base table's rows when the result shows
// their key; with -look, ls and cat of each table the query reads come
// first, as the few-shot log's own example does. A question whose action
// the loop or the turn's grammar refuses is skipped and counted, as are
// those that do not convert or do not verify.
//
//	go run ./bench/agenttraj -data ../shared/benchmarks -out /tmp/agenttraj
//	go run ./bench/agenttraj -data ../shared/benchmarks -out /tmp/agenttraj -dbs poker_player -v
//	go run ./bench/agenttraj -data ../shared/benchmarks -out /tmp/agenttraj -action=false -look
//	go run ./bench/agenttraj -sets synthetic -synthetic-dbs 60 -out /tmp/agenttraj
//
// The synthetic set (-sets synthetic, needing no benchmark data) gives
// the model more schemas than the dev sets' few: -synthetic-dbs databases
// made from -synthetic-seed, database i of a seed the same whatever the
// number. Each takes one of 16 domains (synthdomains.go: suppliers, parts
// and purchase orders; departments and employees; stations and readings;
// courses, students and enrolments; ...), one to three of its tables
// joined by foreign keys, names in one style per database (snake_case,
// CamelCase, lowerCamel, prefixed), each column one of several synonyms
// (qty, quantity, units), values drawn from pools of made-up names (none
// of examples/bikeco's), numbers, dates and categories. It is written as
// an SQLite file (sqlitefile.go writes the format: only ingest/sqldb may
// import a driver) under -work, so the build reads it as it reads
// Spider's. Its 3 to 25 questions come from templates with several
// phrasings, each with gold SQL the converter takes: count, equality
// (of a value the table has), comparison, LIKE '%text%', BETWEEN, sum,
// avg, min, max, GROUP BY with an aggregate, ORDER BY with a LIMIT where
// no tie is at the limit, a join along a foreign key. Then it goes the
// way the dev sets' questions go.
//
// An unordered result comes in DuckDB's order, which may change from one
// run to the next; the answer follows the result its prompt shows, so
// each pair agrees with itself, but two runs need not be byte-equal.
//
// The builds ask no model (no extraction, no embeddings), so no Ollama
// is needed; -v prints each skipped question with its reason and SQL.
//
// It writes train.jsonl and eval.jsonl under -out, one JSON object a
// line: {"set","db","question_id","turn","prompt","completion"}, and
// prints per set and split the questions seen, converted, verified and
// written, the pairs and the reasons for those skipped. The databases of
// eval.jsonl are those training/agent_split.json holds out (a fixed
// seeded rule over each set's databases, written in its "about"); their
// questions never go to train.jsonl. The synthetic set's are computed by
// the same rule over the databases made; the file lists those of the
// default set (seed 1, 60 databases), and any of them a run makes is held
// out too.
package main
