// Command memory measures the peak memory of a build of many synthetic
// chunks with the LLM cache warm, for one or more kgforge binaries in the
// same run. The model is a SIMULATION: a fault-free fake Ollama server in
// this process answers every chat at once with one triplet drawn from the
// chunk's first sentence, so that a first build fills the cache; the
// measured build, into a fresh output directory, then takes every reply
// from the cache. Each binary fills its own cache (an older kgforge may
// key its replies otherwise), and its measured build runs under
// /usr/bin/time -v, whose "Maximum resident set size" is the figure.
//
//	go run ./bench/memory -chunks 100000 old=/tmp/kgforge-old before=/tmp/kgforge-before,new new=/tmp/kgforge
//
// A binary named LABEL=PATH,CACHE shares the cache of that label (and its
// fill): binaries whose extractor keys replies alike. With -dir (one per
// -chunks), a cache an earlier run left there is reused without a fill and
// the documents are left as they are, so that measured builds of several
// binaries can be taken again, in one run, without the fills' minutes.
// KGFORGE_HEAPPROFILE in the environment reaches the builds: each writes a
// heap profile at its peak (package stages, HeapProfileEnv).
package main
