package prompts

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"text/template"
)

//go:embed *.tmpl
var files embed.FS

// Prompt is a parsed template with its content version.
type Prompt struct {
	Name    string
	Version string // first 12 hex digits of the SHA-256 of the template text
	tmpl    *template.Template
}

// Render executes the prompt with data.
func (p *Prompt) Render(data any) (string, error) {
	var b bytes.Buffer
	if err := p.tmpl.Execute(&b, data); err != nil {
		return "", fmt.Errorf("render prompt %s: %w", p.Name, err)
	}
	return b.String(), nil
}

// RenderPart executes the named template defined inside the prompt file
// ({{define "name"}}…{{end}}).
func (p *Prompt) RenderPart(name string, data any) (string, error) {
	var b bytes.Buffer
	if err := p.tmpl.ExecuteTemplate(&b, name, data); err != nil {
		return "", fmt.Errorf("render prompt %s part %s: %w", p.Name, name, err)
	}
	return b.String(), nil
}

// Parts lists the named templates defined inside the prompt file whose
// names start with prefix, sorted.
func (p *Prompt) Parts(prefix string) []string {
	var out []string
	for _, t := range p.tmpl.Templates() {
		if n := t.Name(); n != p.Name && strings.HasPrefix(n, prefix) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// Parse parses a template from text; name is used in errors and the version.
func Parse(name, text string) (*Prompt, error) {
	t, err := template.New(name).Option("missingkey=error").Parse(text)
	if err != nil {
		return nil, fmt.Errorf("parse prompt %s: %w", name, err)
	}
	sum := sha256.Sum256([]byte(text))
	return &Prompt{Name: name, Version: hex.EncodeToString(sum[:])[:12], tmpl: t}, nil
}

// Load returns the embedded prompt with the given file name (e.g. "extract.tmpl").
func Load(name string) (*Prompt, error) {
	b, err := files.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("load prompt %s: %w", name, err)
	}
	return Parse(name, string(b))
}

// Names lists the embedded prompt files.
func Names() []string {
	entries, _ := files.ReadDir(".") // the embedded FS root always exists
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}
