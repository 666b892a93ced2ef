package records_test

import (
	"fmt"
	"strings"
	"testing"

	"kgforge/ingest"
	"kgforge/kg"
)

func BenchmarkLogReader(b *testing.B) {
	var sb strings.Builder
	for i := range 100_000 {
		fmt.Fprintf(&sb, "2025-03-03T06:%02d:%02d.%03dZ INFO  [mes.line] Batch KA-%d: %d of 120 frames welded on cell W%d\n", i/60%60, i%60, i%1000, i, i%120, i%4+1)
		if i%50 == 0 {
			sb.WriteString("java.lang.IllegalStateException: cell busy\n\tat com.velora.mes.line.Cell.weld(Cell.java:42)\n")
		}
	}
	data := sb.String()
	opt := ingest.Options{RecordStart: `^\d{4}-\d{2}-\d{2}T`}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := read(kg.KindLog, data, opt); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkJSONLReader(b *testing.B) {
	var sb strings.Builder
	for i := range 20_000 {
		fmt.Fprintf(&sb, `{"id":"VC-%d","ts":%d,"customer":{"name":"Customer %d","country":"PT"},"subject":"Frame question %d","body":"A body of a support ticket that is some sentences long, about frame serial VT29-%04d.","tags":["warranty","frame"]}`+"\n", i, 1740981602+i, i, i, i%10000)
	}
	data := sb.String()
	opt := ingest.Options{TextFields: []string{"subject", "body", "tags"}}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := read(kg.KindJSONL, data, opt); err != nil {
			b.Fatal(err)
		}
	}
}
