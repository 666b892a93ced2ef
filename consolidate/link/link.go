package link

import "context"

// Config tunes the link step. Zero fields take the defaults.
type Config struct {
	// Tables sets, per table name, whether and how its rows become
	// entities; a table it does not name is decided from its profile.
	Tables map[string]TableConfig
	// MaxRowEntities bounds the row entities of one table; a table with
	// more rows stays a table (default DefaultMaxRowEntities).
	MaxRowEntities int
	// High and Low are the score bands of concept links: at or above High a
	// link is in the graph, between Low and High it is uncertain.
	High, Low float64
	Overrides Overrides
	// Dict tunes the dictionary mentions (dict.go).
	Dict DictConfig
}

// DefaultMaxRowEntities is the default bound on row entities per table.
const DefaultMaxRowEntities = 5000

// TableConfig is the pipeline's say on one table.
type TableConfig struct {
	Entity *bool  // true: rows are entities; false: stays a table; nil: decided from the profile
	Type   string // the entity type; default the table name singularised, in title case
	Name   string // the name-like column; default from the profile
	Key    string // the key column; default the table's candidate key
}

// Overrides are the experts' decisions about links, applied before any
// score. A Target is TABLE, TABLE.COLUMN or TABLE[KEY] (kg.RowTarget); an
// Entity is the name of an entity or concept as the graph has it.
type Overrides struct {
	MustLink   []Pair
	CannotLink []Pair
}

// Pair is one expert decision between an entity or concept and a target.
type Pair struct {
	Entity string
	Target string
	By     string // who decided
}

// Embedder embeds texts (the same contract as consolidate.Embedder).
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}
