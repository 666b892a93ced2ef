package agent

// graphState holds the bundle's graph in memory for the graph operators,
// loaded on the first call.
type graphState struct{}

// graphTools are the graph operators (neighbours, paths, subgraphs,
// centralities, components, removal); none yet.
func (t *Toolbox) graphTools() []Tool { return nil }
