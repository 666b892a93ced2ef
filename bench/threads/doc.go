// Command threads measures what Ollama's num_thread option does to a chat
// model's speed when other work shares the cores: the same raw completion
// (a prompt of about 600 tokens, 40 tokens out) at each num_thread setting,
// with a number of CPU burners running beside it (busy goroutines, each
// locked to its own OS thread: the kind of load other processes put on a
// shared machine). A setting other than the server's loaded one reloads
// the model, so each setting gets one warm-up call before the timed ones.
// docs/benchmarks.md "Ollama's threads: num_thread on a shared machine"
// has the figures.
//
//	go run ./bench/threads -threads 0,1,2 -burners 0,3 -runs 3
package main
