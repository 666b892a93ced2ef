package main

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"

	"kgforge/consolidate/resolve"
	"kgforge/pipelines"
)

// resolveAll resolves the names with their vectors under the pipeline's
// default resolution settings (as stages builds the config) and says how
// sane the result is: the share of planted variants in the cluster of
// their base, and the clusters that hold two bases.
func resolveAll(ctx context.Context, ents []entity, vecs [][]float32) (string, error) {
	p := pipelines.Default().Resolution
	cfg := resolve.Config{
		High: p.High, Low: p.Low, ShortHigh: p.ShortHigh,
		MinClusterSim: p.MinClusterSim, MaxClusterSize: p.MaxClusterSize, Compatible: p.CompatibleTypes,
	}
	rng := rand.New(rand.NewPCG(7, 7))
	in := make([]resolve.Entity, len(ents))
	for i, e := range ents {
		in[i] = resolve.Entity{Key: key(i), Name: e.Name, Type: e.Type, Mentions: 1 + rng.IntN(20), Evidence: rng.IntN(10), Vector: vecs[i]}
	}
	res, err := resolve.Resolve(ctx, in, cfg)
	if err != nil {
		return "", err
	}
	cluster := make(map[string]int, len(ents))
	for k, c := range res.Clusters {
		for _, m := range c.Members {
			cluster[m] = k
		}
	}
	found, planted := 0, 0
	basesIn := map[int]int{}
	for i, e := range ents {
		if e.Of < 0 {
			basesIn[cluster[key(i)]]++
			continue
		}
		planted++
		if cluster[key(i)] == cluster[key(e.Of)] {
			found++
		}
	}
	joined := 0
	for k, n := range basesIn {
		if n > 1 {
			joined++
			if joined <= samples {
				fmt.Fprintln(os.Stderr, "joined:", names(res.Clusters[k].Members, ents))
			}
		}
	}
	sum := ""
	if withDigest {
		sum = "; result sha256 " + digest(res)
	}
	return fmt.Sprintf("%d clusters, %d uncertain pairs; planted variants found %d/%d (%.3f); clusters joining two or more bases %d%s; stats %+v",
		len(res.Clusters), len(res.Uncertain), found, planted, float64(found)/float64(max(1, planted)), joined, sum, res.Stats), nil
}

// digest is the SHA-256 of the whole result as JSON (clusters with their
// merges, uncertain pairs, splits), so two builds of the resolver can be
// shown to resolve alike, not only to the same counts.
func digest(res resolve.Result) string {
	h := sha256.New()
	if err := json.NewEncoder(h).Encode(res); err != nil {
		return "error: " + err.Error()
	}
	return hex.EncodeToString(h.Sum(nil))
}

// withDigest adds the result's digest to the note: the JSON of a
// million names' result is gigabytes, so it is asked for (-digest).
var withDigest = false

// samples is how many clusters that join bases are printed (stderr).
var samples = 0

func names(keys []string, ents []entity) []string {
	var out []string
	for _, k := range keys {
		var i int
		_, _ = fmt.Sscanf(k, "n%07d", &i)
		out = append(out, ents[i].Name)
	}
	return out
}

func key(i int) string { return fmt.Sprintf("n%07d", i) }

func osEnv(k string) string    { return os.Getenv(k) }
func cmpOr(a, b string) string { return cmp.Or(a, b) }
