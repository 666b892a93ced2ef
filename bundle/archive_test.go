package bundle

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"kgforge/kg"
)

// entry is one member of a crafted archive.
type entry struct {
	hdr  tar.Header
	data []byte
}

func regular(name, data string) entry {
	return entry{tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o644, Size: int64(len(data))}, []byte(data)}
}

func writeEntries(t *testing.T, path string, entries []entry) {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		if err := tw.WriteHeader(&e.hdr); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(e.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readEntries(t *testing.T, path string) []entry {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	var out []entry
	tr := tar.NewReader(f)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, entry{*hdr, data})
	}
}

// packed writes a bundle with a vector set and packs it; it returns the
// bundle's directory and the archive.
func packed(t *testing.T) (dir, archive string) {
	t.Helper()
	out := t.TempDir()
	dir = write(t, out, "b", withVectors(vectorSet("nodes", 3, 7)))
	archive = filepath.Join(t.TempDir(), "b.tar")
	if err := Pack(out, archive); err != nil { // through the latest link
		t.Fatal(err)
	}
	return dir, archive
}

func TestPack_OpenRoundTrip(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	dir, archive := packed(t)

	got := readEntries(t, archive)
	names := make([]string, len(got))
	for i, e := range got {
		names[i] = e.hdr.Name
		if !e.hdr.ModTime.Equal(archiveEpoch) || e.hdr.Uid != 0 || e.hdr.Uname != "" {
			t.Errorf("%s: mtime %v, uid %d, uname %q", e.hdr.Name, e.hdr.ModTime, e.hdr.Uid, e.hdr.Uname)
		}
	}
	want := []string{
		"b/", "b/manifest.json", "b/chunks.parquet", "b/data.duckdb", "b/edges.parquet", "b/links.parquet", "b/merge_links.parquet", "b/merges.parquet",
		"b/nodes.parquet", "b/postings.parquet", "b/postings_docs.parquet", "b/sources.parquet", "b/tables.json", "b/triplets.parquet", "b/vectors-nodes.arrow",
	}
	if !slices.Equal(names, want) {
		t.Errorf("entries\n got %v\nwant %v", names, want)
	}

	b, err := Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	fromDir, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = fromDir.Close() })
	if b.Archive != archive || !reflect.DeepEqual(b.Manifest, fromDir.Manifest) {
		t.Errorf("archive %q, manifest %+v", b.Archive, b.Manifest)
	}
	var nodes []kg.Node
	if err := b.Nodes(context.Background(), func(n kg.Node) error { nodes = append(nodes, n); return nil }); err != nil || len(nodes) != 2 {
		t.Errorf("nodes from the archive: %d, %v", len(nodes), err)
	}
	v, err := b.Vectors("nodes")
	if err != nil {
		t.Fatal(err)
	}
	if v.Len() != 3 || v.ID(2) != "nodes-000002" {
		t.Errorf("vectors from the archive: %d rows, last id %q", v.Len(), v.ID(2))
	}
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}

	// Packing again, from the directory or from the archive, gives the same bytes.
	first, _ := os.ReadFile(archive)
	again := filepath.Join(t.TempDir(), "again.tar")
	if err := b.Pack(again); err != nil {
		t.Fatal(err)
	}
	if second, _ := os.ReadFile(again); !bytes.Equal(first, second) {
		t.Error("packing the same bundle twice gave different archives")
	}

	extracted := b.Dir
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(extracted); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Close left the extracted bundle %s: %v", extracted, err)
	}
	if left, _ := os.ReadDir(os.TempDir()); len(left) != 0 {
		t.Errorf("temporary directory holds %v after Close", left)
	}
}

func TestPack_Refuses(t *testing.T) {
	dir := write(t, t.TempDir(), "b", sample())
	for _, tc := range []struct{ name, out, want string }{
		{"not .tar", filepath.Join(t.TempDir(), "b.zip"), "must end in .tar"},
		{"inside the bundle", filepath.Join(dir, "b.tar"), "inside the bundle"},
		{"no such directory", filepath.Join(t.TempDir(), "nope", "b.tar"), "no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Pack(dir, tc.out)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.out) {
				t.Errorf("Pack: %v, want %q naming %s", err, tc.want, tc.out)
			}
			if _, err := os.Stat(tc.out); err == nil {
				t.Errorf("%s was written", tc.out)
			}
		})
	}
	if entries, _ := os.ReadDir(dir); slices.ContainsFunc(entries, func(e os.DirEntry) bool { return strings.HasPrefix(e.Name(), ".tmp") }) {
		t.Errorf("temporary file left in %s", dir)
	}
}

func TestOpen_RefusesMaliciousArchives(t *testing.T) {
	_, archive := packed(t)
	good := readEntries(t, archive) // b/, b/manifest.json, then the files
	victim := t.TempDir()           // what a symlink or '..' would reach
	dir := entry{tar.Header{Typeflag: tar.TypeDir, Name: "b/", Mode: 0o755}, nil}
	link := func(typ byte, name, target string) entry {
		return entry{tar.Header{Typeflag: typ, Name: name, Linkname: target, Mode: 0o777}, nil}
	}
	with := func(extra ...entry) []entry { return append(slices.Clone(good), extra...) }
	at := func(i int, e entry) []entry { l := slices.Clone(good); return slices.Insert(l, i, e) }
	nodesAt := slices.IndexFunc(good, func(e entry) bool { return e.hdr.Name == "b/"+NodesFile })
	longer := slices.Clone(good)
	longer[nodesAt] = regular("b/"+NodesFile, string(good[nodesAt].data)+"x")
	tampered := slices.Clone(good)
	tampered[nodesAt] = regular("b/"+NodesFile, "X"+string(good[nodesAt].data[1:]))

	cases := []struct {
		name    string
		entries []entry
		raw     []byte // instead of entries
		want    error
		mention string
	}{
		{"zip slip", with(regular("b/../x", "pwned")), nil, ErrEscape, "b/../x"},
		{"leading dot-dot", at(2, regular("../x", "pwned")), nil, ErrEscape, "../x"},
		{"absolute path", with(regular("/etc/x", "pwned")), nil, ErrEscape, "/etc/x"},
		{"unclean path", with(regular("b/./nodes.parquet", "x")), nil, ErrEscape, "b/./nodes.parquet"},
		{"outside the top directory", with(regular("c/x", "x")), nil, ErrEscape, "c/x"},
		{"symlink then write through it", slices.Concat(good[:2], []entry{link(tar.TypeSymlink, "b/out", victim), regular("b/out/pwned", "x")}, good[2:]), nil, ErrInvalid, "symbolic link"},
		{"symlink as the top directory", append([]entry{link(tar.TypeSymlink, "b", victim)}, good[1:]...), nil, ErrInvalid, "symbolic link"},
		{"hard link", with(link(tar.TypeLink, "b/h", "/etc/passwd")), nil, ErrInvalid, "hard link"},
		{"device", with(entry{tar.Header{Typeflag: tar.TypeChar, Name: "b/dev", Devmajor: 1, Devminor: 3}, nil}), nil, ErrInvalid, "device"},
		{"fifo", with(entry{tar.Header{Typeflag: tar.TypeFifo, Name: "b/p"}, nil}), nil, ErrInvalid, "named pipe"},
		{"nested directory", with(entry{tar.Header{Typeflag: tar.TypeDir, Name: "b/sub/"}, nil}), nil, ErrInvalid, "b/sub/"},
		{"nested file", with(regular("b/sub/x", "x")), nil, ErrInvalid, "b/sub/x"},
		{"duplicate entry", with(good[nodesAt]), nil, ErrInvalid, "duplicate entry"},
		{"duplicate top directory", at(1, dir), nil, ErrInvalid, "duplicate entry"},
		{"file before the manifest", at(1, regular("b/"+EdgesFile, "x")), nil, ErrInvalid, "comes before manifest.json"},
		{"unlisted file", with(regular("b/extra.txt", "x")), nil, ErrInvalid, "does not list"},
		{"size differs from the manifest", longer, nil, ErrInvalid, "manifest says"},
		{"content differs from the manifest", tampered, nil, ErrChecksum, NodesFile},
		{"no manifest", []entry{dir, regular("b/x", "x")}, nil, ErrInvalid, "comes before manifest.json"},
		{"empty archive", []entry{}, nil, ErrInvalid, "no manifest.json"},
		{"oversize entry", nil, oversize(t, good[:2]), ErrInvalid, "size 1099511627776"},
		{"not a tar", nil, bytes.Repeat([]byte("not a tar "), 100), ErrInvalid, "read archive"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tmp := t.TempDir()
			t.Setenv("TMPDIR", tmp)
			path := filepath.Join(t.TempDir(), "evil.tar")
			if tc.raw != nil {
				if err := os.WriteFile(path, tc.raw, 0o644); err != nil {
					t.Fatal(err)
				}
			} else {
				writeEntries(t, path, tc.entries)
			}
			b, err := Open(path)
			if err == nil {
				_ = b.Close()
			}
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.mention) {
				t.Errorf("Open: %v\nwant %v naming %s and %q", err, tc.want, path, tc.mention)
			}
			if testing.Verbose() {
				t.Log(err)
			}
			if left, _ := os.ReadDir(tmp); len(left) != 0 {
				t.Errorf("refused archive left %v in the temporary directory", left)
			}
			if left, _ := os.ReadDir(victim); len(left) != 0 {
				t.Errorf("refused archive wrote %v outside", left)
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(path), "x")); err == nil {
				t.Error("refused archive wrote beside itself")
			}
		})
	}
}

// oversize returns the entries as a tar followed by the header of a file
// that claims a terabyte, and no data.
func oversize(t *testing.T, entries []entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		if err := tw.WriteHeader(&e.hdr); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(e.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: "b/" + NodesFile, Size: 1 << 40, Mode: 0o644}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes() // the writer is abandoned: its header is already in buf
}

func TestOpen_ArchiveBounds(t *testing.T) {
	_, archive := packed(t)
	for _, tc := range []struct {
		name    string
		set     func()
		mention string
	}{
		{"too many entries", func() { maxArchiveEntries = 3 }, "more than 3 entries"},
		{"manifest too large", func() { maxManifestBytes = 10 }, "more than 10 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			entries, manifest := maxArchiveEntries, maxManifestBytes
			t.Cleanup(func() { maxArchiveEntries, maxManifestBytes = entries, manifest })
			tc.set()
			_, err := Open(archive)
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.mention) || !strings.Contains(err.Error(), archive) {
				t.Errorf("Open: %v, want %q naming %s", err, tc.mention, archive)
			}
		})
	}
	other := filepath.Join(t.TempDir(), "b.zip")
	if err := os.WriteFile(other, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(other); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "not a directory or a .tar") {
		t.Errorf("Open(%s): %v", other, err)
	}
}

func TestPack_Mtime(t *testing.T) {
	out := t.TempDir()
	created := time.Date(2026, 11, 29, 19, 54, 46, 123456789, time.UTC)
	w, err := Create(out, "b")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Commit(sample(), Manifest{Created: created}); err != nil {
		t.Fatal(err)
	}
	archive := filepath.Join(t.TempDir(), "b.tar")
	if err := Pack(out, archive); err != nil {
		t.Fatal(err)
	}
	for _, e := range readEntries(t, archive) {
		if !e.hdr.ModTime.Equal(created.Truncate(time.Second)) {
			t.Errorf("%s: mtime %v, want the bundle's creation time %v", e.hdr.Name, e.hdr.ModTime, created)
		}
	}
}
