package stages

import (
	"strings"

	"kgforge/kg"
)

// interner copies the strings of what assemble keeps out of the Parquet
// reader's buffers, once per distinct value. A string read from a segment
// points into the Arrow buffer of its whole record batch, every column of
// it: kept as read, one id would hold a batch's evidence, descriptions and
// text alive. Copied, a triplet costs its own bytes, and the values that
// recur (chunk and source ids, names, types, predicates, the model and
// prompt) are held once. Ids of their own (a triplet's, a mention's) are
// copied without the table. The table itself goes with the interner,
// after assemble.
type interner map[string]string

func (in interner) of(s string) string {
	if s == "" {
		return ""
	}
	if v, ok := in[s]; ok {
		return v
	}
	v := strings.Clone(s)
	in[v] = v
	return v
}

// chunk copies what assemble keeps of a chunk (its text only when kept).
func (in interner) chunk(c *kg.Chunk) {
	c.ID, c.SourceID, c.Section = in.of(c.ID), in.of(c.SourceID), in.of(c.Section)
	c.Text = strings.Clone(c.Text)
	c.TimeStart, c.TimeEnd = in.of(c.TimeStart), in.of(c.TimeEnd)
}

func (in interner) mention(m *kg.Mention) {
	m.ID, m.ChunkID = strings.Clone(m.ID), in.of(m.ChunkID)
	m.Surface, m.Type, m.Description = in.of(m.Surface), in.of(m.Type), in.of(m.Description)
}

func (in interner) triplet(t *kg.Triplet) {
	t.ID, t.ChunkID = strings.Clone(t.ID), in.of(t.ChunkID)
	in.mention(&t.Subject)
	in.mention(&t.Object)
	t.Predicate, t.Evidence = in.of(t.Predicate), in.of(t.Evidence)
	t.ValidFrom, t.ValidTo = in.of(t.ValidFrom), in.of(t.ValidTo)
	t.Model, t.PromptVersion = in.of(t.Model), in.of(t.PromptVersion)
}
