package bundle

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// vectorSet returns a set of n vectors of dim whose values are distinct
// bit patterns, with the awkward ones (NaN payloads, -0, infinities,
// subnormals) early on.
func vectorSet(name string, n, dim int) VectorSet {
	v := VectorSet{Name: name, Model: "all-minilm:l6-v2", Dim: dim, IDs: make([]string, n), Data: make([]float32, n*dim)}
	special := []float32{
		math.Float32frombits(0x7fc00001), float32(math.Copysign(0, -1)), float32(math.Inf(1)),
		float32(math.Inf(-1)), math.Float32frombits(1), math.MaxFloat32,
	}
	for i := range v.IDs {
		v.IDs[i] = fmt.Sprintf("%s-%06d", name, i)
	}
	for i := range v.Data {
		if i < len(special) {
			v.Data[i] = special[i]
		} else {
			v.Data[i] = float32(i)*0.001 - 3
		}
	}
	return v
}

func withVectors(sets ...VectorSet) Contents {
	c := sample()
	c.Vectors = sets
	return c
}

func TestVectors_RoundTripBitExact(t *testing.T) {
	sets := []VectorSet{
		vectorSet("nodes", 3, 7),
		vectorSet("chunks", rowGroupRows+5, 4), // two record batches
		vectorSet("empty", 0, 16),
	}
	dir := write(t, t.TempDir(), "b", withVectors(sets...))
	b, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	for _, want := range sets {
		t.Run(want.Name, func(t *testing.T) {
			file := VectorsFile(want.Name)
			if info := b.Manifest.Vectors[want.Name]; info != (VectorInfo{Model: want.Model, Dim: want.Dim, Rows: int64(len(want.IDs))}) {
				t.Errorf("manifest vectors[%s] = %+v", want.Name, info)
			}
			if got := b.Manifest.Counts["vectors:"+want.Name]; got != int64(len(want.IDs)) {
				t.Errorf("counts[vectors:%s] = %d", want.Name, got)
			}
			if _, ok := b.Manifest.Files[file]; !ok {
				t.Errorf("manifest files lack %s", file)
			}
			raw, err := os.ReadFile(filepath.Join(dir, file))
			if err != nil || !strings.HasPrefix(string(raw), "ARROW1") {
				t.Fatalf("%s is not an Arrow IPC file: %v", file, err)
			}
			v, err := b.Vectors(want.Name)
			if err != nil {
				t.Fatal(err)
			}
			if v.Len() != len(want.IDs) || v.Dim() != want.Dim || v.Model() != want.Model {
				t.Fatalf("Len, Dim, Model = %d, %d, %q", v.Len(), v.Dim(), v.Model())
			}
			for i := range v.Len() {
				if v.ID(i) != want.IDs[i] {
					t.Fatalf("ID(%d) = %q, want %q", i, v.ID(i), want.IDs[i])
				}
				got, w := v.Vector(i), want.Data[i*want.Dim:(i+1)*want.Dim]
				if len(got) != want.Dim || cap(got) != want.Dim {
					t.Fatalf("Vector(%d): len %d cap %d, want %d", i, len(got), cap(got), want.Dim)
				}
				for j := range got {
					if math.Float32bits(got[j]) != math.Float32bits(w[j]) {
						t.Fatalf("Vector(%d)[%d] = %#x, want %#x", i, j, math.Float32bits(got[j]), math.Float32bits(w[j]))
					}
				}
			}
			id := ""
			if v.Len() > 0 {
				id = v.ID(v.Len() - 1)
			}
			if err := v.Close(); err != nil {
				t.Fatal(err)
			}
			if err := v.Close(); err != nil {
				t.Errorf("second Close: %v", err)
			}
			if v.Len() > 0 && id != want.IDs[len(want.IDs)-1] { // ids are copies, valid after Close
				t.Errorf("id after Close = %q", id)
			}
		})
	}
}

func TestWriter_NoVectorsNoFile(t *testing.T) {
	dir := write(t, t.TempDir(), "b", sample())
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "vectors") {
			t.Errorf("bundle without vectors has %s", e.Name())
		}
	}
	b, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	if len(b.Manifest.Vectors) != 0 {
		t.Errorf("manifest vectors = %v", b.Manifest.Vectors)
	}
	if _, err := b.Vectors("nodes"); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), dir) {
		t.Errorf("Vectors of a bundle without any: %v, want fs.ErrNotExist naming %s", err, dir)
	}
}

func TestWriter_RefusesBadVectorSets(t *testing.T) {
	good := func() VectorSet { return vectorSet("nodes", 2, 3) }
	cases := []struct {
		name string
		edit func(*VectorSet)
		want string
	}{
		{"upper-case name", func(v *VectorSet) { v.Name = "Nodes" }, "name must match"},
		{"path in name", func(v *VectorSet) { v.Name = "../x" }, "name must match"},
		{"dash in name", func(v *VectorSet) { v.Name = "a-b" }, "name must match"},
		{"empty name", func(v *VectorSet) { v.Name = "" }, "name must match"},
		{"long name", func(v *VectorSet) { v.Name = strings.Repeat("a", 65) }, "name must match"},
		{"no model", func(v *VectorSet) { v.Model = "" }, "no model"},
		{"zero dim", func(v *VectorSet) { v.Dim = 0 }, "dim 0"},
		{"short data", func(v *VectorSet) { v.Data = v.Data[:5] }, "5 values for 2 ids of dim 3, want 6"},
		{"empty id", func(v *VectorSet) { v.IDs[1] = "" }, "id of row 1 is empty"},
		{"repeated id", func(v *VectorSet) { v.IDs[1] = v.IDs[0] }, "id of row 1 repeats row 0"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir()
			v := good()
			tc.edit(&v)
			w, err := Create(out, "b")
			if err != nil {
				t.Fatal(err)
			}
			_, err = w.Commit(withVectors(v), Manifest{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Commit: %v, want an error with %q", err, tc.want)
			}
			if entries, _ := os.ReadDir(out); len(entries) != 0 {
				t.Errorf("refused commit left %v", entries)
			}
		})
	}
	t.Run("two sets of one name", func(t *testing.T) {
		w, err := Create(t.TempDir(), "b")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Commit(withVectors(good(), good()), Manifest{}); err == nil || !strings.Contains(err.Error(), "a second set") {
			t.Errorf("Commit: %v", err)
		}
	})
}

func TestBundle_VectorsRefusesDamage(t *testing.T) {
	file := VectorsFile("nodes")
	cases := []struct {
		name     string
		damage   func(t *testing.T, dir string)
		openErr  error // from Open
		vectsErr error // else from Vectors
		mention  string
	}{
		{"truncated file", func(t *testing.T, dir string) {
			p := filepath.Join(dir, file)
			st, _ := os.Stat(p)
			if err := os.Truncate(p, st.Size()-8); err != nil {
				t.Fatal(err)
			}
		}, ErrChecksum, nil, file},
		{"flipped byte", func(t *testing.T, dir string) { flipByte(t, filepath.Join(dir, file), 200) }, ErrChecksum, nil, file},
		{"set without file", func(t *testing.T, dir string) {
			editManifest(t, dir, func(m *Manifest) { m.Vectors["more"] = VectorInfo{Model: "m", Dim: 1} })
		}, ErrInvalid, nil, VectorsFile("more")},
		{"file without set", func(t *testing.T, dir string) {
			editManifest(t, dir, func(m *Manifest) { delete(m.Vectors, "nodes") })
		}, ErrInvalid, nil, file},
		{"bad set name", func(t *testing.T, dir string) {
			editManifest(t, dir, func(m *Manifest) { m.Vectors["../x"] = m.Vectors["nodes"] })
		}, ErrInvalid, nil, "../x"},
		{"manifest dim differs", func(t *testing.T, dir string) {
			editManifest(t, dir, func(m *Manifest) { m.Vectors["nodes"] = VectorInfo{Model: "all-minilm:l6-v2", Dim: 4, Rows: 3} })
		}, nil, ErrInvalid, "manifest says 4"},
		{"manifest rows differ", func(t *testing.T, dir string) {
			editManifest(t, dir, func(m *Manifest) { m.Vectors["nodes"] = VectorInfo{Model: "all-minilm:l6-v2", Dim: 7, Rows: 4} })
		}, nil, ErrInvalid, "3 rows, manifest says 4"},
		{"manifest model differs", func(t *testing.T, dir string) {
			editManifest(t, dir, func(m *Manifest) { m.Vectors["nodes"] = VectorInfo{Model: "other", Dim: 7, Rows: 3} })
		}, nil, ErrInvalid, `manifest says "other"`},
		{"garbage with a matching checksum", func(t *testing.T, dir string) {
			p := filepath.Join(dir, file)
			garbage := []byte("ARROW1\x00\x00" + strings.Repeat("\xff", 300) + "ARROW1")
			if err := os.WriteFile(p, garbage, 0o644); err != nil {
				t.Fatal(err)
			}
			fi, err := checksum(p)
			if err != nil {
				t.Fatal(err)
			}
			editManifest(t, dir, func(m *Manifest) { m.Files[file] = fi })
		}, nil, ErrInvalid, file},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := write(t, t.TempDir(), "b", withVectors(vectorSet("nodes", 3, 7)))
			tc.damage(t, dir)
			b, err := Open(dir)
			if tc.openErr != nil {
				if !errors.Is(err, tc.openErr) || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), tc.mention) {
					t.Errorf("Open: %v, want %v naming %s and %s", err, tc.openErr, dir, tc.mention)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = b.Close() })
			v, err := b.Vectors("nodes")
			if err == nil {
				_ = v.Close()
			}
			if !errors.Is(err, tc.vectsErr) || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), file) || !strings.Contains(err.Error(), tc.mention) {
				t.Errorf("Vectors: %v, want %v naming %s, %s and %q", err, tc.vectsErr, dir, file, tc.mention)
			}
		})
	}
}

func flipByte(t *testing.T, path string, at int64) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	b := make([]byte, 1)
	if _, err := f.ReadAt(b, at); err != nil {
		t.Fatal(err)
	}
	b[0] ^= 0xff
	if _, err := f.WriteAt(b, at); err != nil {
		t.Fatal(err)
	}
}
