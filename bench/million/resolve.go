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
// their base, the clusters that hold two bases, and the pairs of names
// the clusters join that are two things (each base is its own thing, a
// variant is its base's).
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
	// Pairs of names the clusters put together, and those that are two
	// things (two bases, or a name and another base's variant).
	var pairs, wrong int64
	for _, c := range res.Clusters {
		gold := map[int]int64{}
		for _, m := range c.Members {
			var i int
			_, _ = fmt.Sscanf(m, "n%07d", &i)
			g := i
			if ents[i].Of >= 0 {
				g = ents[i].Of
			}
			gold[g]++
		}
		n := int64(len(c.Members))
		pairs += n * (n - 1) / 2
		wrong += n * (n - 1) / 2
		for _, k := range gold {
			wrong -= k * (k - 1) / 2
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
	return fmt.Sprintf("%d clusters, %d uncertain pairs; planted variants found %d/%d (%.3f); clusters joining two or more bases %d; pairs joined %d, of two things %d (pairwise precision %.3f)%s; stats %+v",
		len(res.Clusters), len(res.Uncertain), found, planted, float64(found)/float64(max(1, planted)), joined,
		pairs, wrong, 1-float64(wrong)/float64(max(1, pairs)), sum, res.Stats), nil
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
