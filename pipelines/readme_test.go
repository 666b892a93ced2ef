package pipelines

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestREADMEShowsTheExamplePipeline keeps the pipeline file the README shows
// equal to pipelines/example.yaml, and that file valid, so a newcomer who
// copies it gets what `make demo` runs.
func TestREADMEShowsTheExamplePipeline(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	file, err := os.ReadFile("example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	const marker = "`pipelines/example.yaml`"
	_, after, ok := strings.Cut(string(readme), marker)
	if !ok {
		t.Fatalf("README.md does not name %s", marker)
	}
	_, after, ok = strings.Cut(after, "```yaml\n")
	if !ok {
		t.Fatal("README.md has no yaml block after " + marker)
	}
	shown, _, ok := strings.Cut(after, "```\n")
	if !ok {
		t.Fatal("README.md's yaml block is not closed")
	}
	if shown != string(file) {
		t.Errorf("README.md's pipeline block differs from pipelines/example.yaml:\n--- README\n%s--- file\n%s", shown, file)
	}
	p, err := Load("example.yaml")
	if err != nil {
		t.Fatalf("pipelines/example.yaml: %v", err)
	}
	for _, s := range p.Sources {
		for _, g := range s.Paths {
			m, err := filepath.Glob(filepath.Join(p.Resolve(p.Root), g))
			if err != nil || len(m) == 0 {
				t.Errorf("pipelines/example.yaml: source %s: %q matches no file (%v)", s.Name, g, err)
			}
		}
	}
}

// figure matches what the README quotes as a measurement: a number with a
// unit of time, size or share, written with a space before the unit as
// docs/benchmarks.md writes them ("141.7 s", "4.5 GB", "0.98 %", "2–3×");
// settings written without the space ("30s", "1GiB") are not figures.
var figure = regexp.MustCompile(`(?:^|[^\w.,])(\d[\d,.]*(?:–\d[\d,.]*)?(?: (?:s|ms|min|minutes|hours?|GB|GiB|MB|MiB|KB|%)\b|×))`)

// benchmarkCite matches a citation of a docs/benchmarks.md section by the
// start of its heading: (docs/benchmarks.md, "kgforge-extract").
var benchmarkCite = regexp.MustCompile(`docs/benchmarks\.md, "([^"]+)"`)

// TestREADMEFiguresAreRecorded ties every figure the README quotes to a
// run recorded in docs/benchmarks.md: each paragraph that quotes one cites
// the sections it comes from, and each figure is written in one of them,
// so a figure cannot be changed, or outlive its run, on one side only.
func TestREADMEFiguresAreRecorded(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	bench, err := os.ReadFile("../docs/benchmarks.md")
	if err != nil {
		t.Fatal(err)
	}
	sections := benchmarkSections(string(bench))
	checked := 0
	for _, para := range readmeParagraphs(string(readme)) {
		figs := figure.FindAllStringSubmatch(para, -1)
		if len(figs) == 0 {
			continue
		}
		var cited []string
		for _, c := range benchmarkCite.FindAllStringSubmatch(para, -1) {
			text, n := "", 0
			for heading, body := range sections {
				if strings.HasPrefix(heading, c[1]) {
					text += body
					n++
				}
			}
			if n == 0 {
				t.Errorf("README cites docs/benchmarks.md section %q, which docs/benchmarks.md has no heading for", c[1])
			}
			cited = append(cited, text)
		}
		if len(cited) == 0 {
			t.Errorf("README paragraph quotes %q but cites no docs/benchmarks.md section:\n%s", figs[0][1], para)
			continue
		}
		all := strings.Join(cited, "\n")
		for _, f := range figs {
			checked++
			if !strings.Contains(all, f[1]) {
				t.Errorf("README quotes %q, which none of the docs/benchmarks.md sections its paragraph cites records:\n%s", f[1], para)
			}
		}
	}
	if checked == 0 {
		t.Error("found no figure in README.md: the pattern no longer matches how it writes them")
	}
}

// readmeParagraphs splits markdown into paragraphs (blank-line separated,
// lines joined by spaces), leaving out fenced code blocks: commands and
// configuration, not measurements.
func readmeParagraphs(md string) []string {
	var paras []string
	var cur []string
	fenced := false
	flush := func() {
		if len(cur) > 0 {
			paras = append(paras, strings.Join(cur, " "))
			cur = nil
		}
	}
	for line := range strings.Lines(md) {
		line = strings.TrimRight(line, "\n")
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
			flush()
			continue
		}
		if fenced {
			continue
		}
		if strings.TrimSpace(line) == "" {
			flush()
			continue
		}
		cur = append(cur, strings.TrimSpace(line))
	}
	flush()
	return paras
}

// benchmarkSections maps each heading of docs/benchmarks.md (without its
// #s) to the text below it up to the next heading of the same or a higher
// level, subsections included, whitespace folded to single spaces.
func benchmarkSections(md string) map[string]string {
	type heading struct {
		level int
		title string
		start int
	}
	lines := strings.Split(md, "\n")
	var hs []heading
	for i, l := range lines {
		if lvl := len(l) - len(strings.TrimLeft(l, "#")); lvl > 0 && strings.HasPrefix(l[lvl:], " ") {
			hs = append(hs, heading{lvl, strings.TrimSpace(l[lvl:]), i})
		}
	}
	out := make(map[string]string, len(hs))
	for k, h := range hs {
		end := len(lines)
		for _, next := range hs[k+1:] {
			if next.level <= h.level {
				end = next.start
				break
			}
		}
		out[h.title] = strings.Join(strings.Fields(strings.Join(lines[h.start:end], "\n")), " ")
	}
	return out
}
