package stages

import (
	"time"

	"kgforge/llm"
	"kgforge/pipelines"
)

// EndpointReport is what one of llm.endpoints served in a build.
type EndpointReport struct {
	llm.EndpointUsage
	// BusyShare is the share of the extract stage's wall time, times the
	// endpoint's slots, that the server spent answering (as it reports
	// it): 1 means the build never left one of its slots idle.
	BusyShare float64 `json:"busy_share"`
}

// endpointReports is each endpoint's account, when the pipeline lists
// llm.endpoints; nil for the single server of OLLAMA_HOST.
func endpointReports(c *llm.Client, p *pipelines.Pipeline, extract time.Duration) []EndpointReport {
	if c == nil || len(p.LLM.Endpoints) == 0 {
		return nil
	}
	var out []EndpointReport
	for _, u := range c.Endpoints() {
		r := EndpointReport{EndpointUsage: u}
		if extract > 0 && u.Slots > 0 {
			r.BusyShare = u.ServerDuration.Seconds() / (extract.Seconds() * float64(u.Slots))
		}
		out = append(out, r)
	}
	return out
}
