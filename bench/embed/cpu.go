package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// runnerCPU returns the CPU seconds (user + system) that the children of
// server (Ollama's model runners) have used so far; 0 when server is 0.
func runnerCPU(server int) float64 {
	if server <= 0 {
		return 0
	}
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	total := 0.0
	for _, p := range stats {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		// Fields after the command (which may hold spaces) in parentheses.
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) < 13 || f[1] != strconv.Itoa(server) {
			continue
		}
		ut, _ := strconv.ParseFloat(f[11], 64)
		st, _ := strconv.ParseFloat(f[12], 64)
		total += (ut + st) / 100 // clock ticks; USER_HZ is 100 on Linux
	}
	return total
}
