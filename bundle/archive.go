package bundle

import (
	"archive/tar"
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// ArchiveExt ends the name of a bundle archive.
const ArchiveExt = ".tar"

// Bounds on what an archive may hold; variables so tests can lower them.
var (
	maxArchiveEntries = 4096     // a bundle has about ten files, plus one per vector set
	maxManifestBytes  = 64 << 20 // the manifest is read into memory
)

// archiveEpoch is the time of the entries of a bundle with no creation time.
var archiveEpoch = time.Unix(0, 0).UTC()

func validBuildID(id string) bool {
	return id != "" && !strings.ContainsAny(id, `/\`) && id != "." && id != ".." && id != LatestLink
}

// Pack writes the bundle at dir (anything Open accepts) as one archive at
// out: see (*Bundle).Pack.
func Pack(dir, out string) (err error) {
	b, err := Open(dir)
	if err != nil {
		return fmt.Errorf("pack bundle: %w", err)
	}
	defer func() { err = errors.Join(err, b.Close()) }()
	return b.Pack(out)
}

// Pack writes the bundle as one uncompressed POSIX tar archive at out, whose
// name must end in .tar: a top directory named by the build id holding
// manifest.json first, then the other files sorted by name, every entry
// with the bundle's creation time, mode 0644 (0755 for the directory) and no
// owner, so the same bundle always packs into the same bytes. Every file is
// checked against the manifest's checksum on the way. The archive is
// written to a temporary file beside out and renamed over it when whole.
func (b *Bundle) Pack(out string) (err error) {
	fail := func(err error) error { return fmt.Errorf("pack bundle %s into %s: %w", b.name(), out, err) }
	if !strings.HasSuffix(out, ArchiveExt) || filepath.Base(out) == ArchiveExt {
		return fail(fmt.Errorf("the archive's name must end in %s", ArchiveExt))
	}
	top := b.Manifest.BuildID
	if !validBuildID(top) {
		return fail(fmt.Errorf("%w: build id %q cannot name a directory", ErrInvalid, top))
	}
	if inside, err := within(b.Dir, filepath.Dir(out)); err != nil || inside {
		return fail(errors.Join(err, errors.New("the archive cannot be written inside the bundle")))
	}
	tmp, err := os.CreateTemp(filepath.Dir(out), ".tmp-"+filepath.Base(out)+"-")
	if err != nil {
		return fail(err)
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, os.Remove(tmp.Name()))
		}
	}()
	if err := b.writeTar(tmp, top); err != nil {
		return fail(errors.Join(err, tmp.Close()))
	}
	if err := tmp.Chmod(0o644); err != nil { // CreateTemp made it 0600
		return fail(errors.Join(err, tmp.Close()))
	}
	if err := errors.Join(tmp.Sync(), tmp.Close()); err != nil {
		return fail(err)
	}
	if err := os.Rename(tmp.Name(), out); err != nil {
		return fail(err)
	}
	return syncDir(filepath.Dir(out))
}

func (b *Bundle) writeTar(f *os.File, top string) error {
	mtime := b.Manifest.Created.UTC().Truncate(time.Second)
	if mtime.Before(archiveEpoch) {
		mtime = archiveEpoch
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	tw := tar.NewWriter(bw)
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: top + "/", Mode: 0o755, ModTime: mtime}); err != nil {
		return err
	}
	for _, name := range append([]string{ManifestFile}, slices.Sorted(maps.Keys(b.Manifest.Files))...) {
		if err := b.packFile(tw, top, name, mtime); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return bw.Flush()
}

// packFile appends one file of the bundle to tw, checking it against the
// manifest (the manifest itself has no entry in it).
func (b *Bundle) packFile(tw *tar.Writer, top, name string, mtime time.Time) (err error) {
	f, err := b.root.Open(name)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, f.Close()) }()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	want, listed := b.Manifest.Files[name]
	if listed && st.Size() != want.Bytes {
		return fmt.Errorf("%w: %s has %d bytes, manifest says %d", ErrChecksum, name, st.Size(), want.Bytes)
	}
	hdr := &tar.Header{Typeflag: tar.TypeReg, Name: top + "/" + name, Size: st.Size(), Mode: 0o644, ModTime: mtime}
	if err := tw.WriteHeader(hdr); err != nil {
		return err
	}
	h := sha256.New()
	if _, err := io.CopyN(io.MultiWriter(tw, h), f, st.Size()); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); listed && got != want.SHA256 {
		return fmt.Errorf("%w: %s has sha256 %s, manifest says %s", ErrChecksum, name, got, want.SHA256)
	}
	return nil
}

// within reports whether dir is root or below it, symbolic links resolved.
func within(root, dir string) (bool, error) {
	var abs [2]string
	for i, p := range []string{root, dir} {
		resolved, err := filepath.EvalSymlinks(p)
		if err != nil {
			return false, err
		}
		if abs[i], err = filepath.Abs(resolved); err != nil {
			return false, err
		}
	}
	rel, err := filepath.Rel(abs[0], abs[1])
	if err != nil {
		return false, err
	}
	return rel == "." || filepath.IsLocal(rel), nil
}

// openArchive extracts the archive at path into a private temporary
// directory and opens the bundle there; the Bundle's Close removes it.
func openArchive(path string) (_ *Bundle, err error) {
	tmp, err := os.MkdirTemp("", "kgforge-bundle-")
	if err != nil {
		return nil, fmt.Errorf("open bundle %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, os.RemoveAll(tmp))
		}
	}()
	top, err := extract(path, tmp)
	if err != nil {
		return nil, fmt.Errorf("open bundle %s: %w", path, err)
	}
	dir := filepath.Join(tmp, top)
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("open bundle %s: %w", path, err)
	}
	b := &Bundle{Dir: dir, Archive: path, root: root, tmp: tmp}
	if err := b.verify(); err != nil {
		return nil, errors.Join(fmt.Errorf("open bundle %s: %w", path, err), root.Close())
	}
	return b, nil
}

// entryError is a refused archive entry.
func entryError(name string, sentinel error, format string, args ...any) error {
	return fmt.Errorf("entry %q: %w: %s", name, sentinel, fmt.Sprintf(format, args...))
}

// extract writes the archive's files into dir (through an os.Root, so no
// write can leave it) and returns the name of the top directory. It refuses
// anything Pack does not write: an absolute or unclean name, a '..'
// component, an entry outside the one top directory or below it, a link,
// device or other special file, a repeated name, more than
// maxArchiveEntries entries, a file before manifest.json, a file the
// manifest does not list or whose size differs from the manifest's, and a
// size larger than the archive itself.
func extract(archive, dir string) (top string, err error) {
	f, err := os.Open(archive)
	if err != nil {
		return "", err
	}
	defer func() { err = errors.Join(err, f.Close()) }()
	st, err := f.Stat()
	if err != nil {
		return "", err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return "", err
	}
	defer func() { err = errors.Join(err, root.Close()) }()

	tr := tar.NewReader(bufio.NewReaderSize(f, 1<<20))
	seen := map[string]bool{}
	var m *Manifest
	for entries := 1; ; entries++ {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if errors.Is(err, tar.ErrInsecurePath) && hdr != nil { // with GODEBUG=tarinsecurepath=0
			return "", entryError(hdr.Name, ErrEscape, "not a local path")
		}
		if err != nil {
			return "", fmt.Errorf("%w: read archive: %w", ErrInvalid, err)
		}
		if entries > maxArchiveEntries {
			return "", entryError(hdr.Name, ErrInvalid, "more than %d entries", maxArchiveEntries)
		}
		name := hdr.Name
		clean := strings.TrimSuffix(name, "/")
		switch {
		case strings.HasPrefix(name, "/"):
			return "", entryError(name, ErrEscape, "absolute path")
		case slices.Contains(strings.Split(clean, "/"), ".."):
			return "", entryError(name, ErrEscape, "'..' component")
		case !fs.ValidPath(clean) || clean == "." || strings.ContainsAny(clean, "\\\x00"):
			return "", entryError(name, ErrEscape, "not a clean relative path")
		}
		dirName, file, _ := strings.Cut(clean, "/")
		if top == "" {
			if !validBuildID(dirName) {
				return "", entryError(name, ErrInvalid, "top directory %q is not a build id", dirName)
			}
			top = dirName
			if err := root.Mkdir(top, 0o755); err != nil {
				return "", entryError(name, ErrInvalid, "%v", err)
			}
		} else if dirName != top {
			return "", entryError(name, ErrEscape, "outside the top directory %s", top)
		}
		if strings.Contains(file, "/") {
			return "", entryError(name, ErrInvalid, "below the top directory (a bundle is flat)")
		}
		if seen[clean] {
			return "", entryError(name, ErrInvalid, "duplicate entry")
		}
		seen[clean] = true
		switch hdr.Typeflag {
		case tar.TypeDir:
			if file != "" {
				return "", entryError(name, ErrInvalid, "a directory below the top directory (a bundle is flat)")
			}
			if len(seen) != 1 {
				return "", entryError(name, ErrInvalid, "the top directory must be the first entry")
			}
			continue
		case tar.TypeReg:
		default:
			return "", entryError(name, ErrInvalid, "%s (only regular files and the top directory are allowed)", typeName(hdr.Typeflag))
		}
		if file == "" {
			return "", entryError(name, ErrInvalid, "a file in place of the top directory")
		}
		if hdr.Size < 0 || hdr.Size > st.Size() {
			return "", entryError(name, ErrInvalid, "size %d, and the archive has %d bytes", hdr.Size, st.Size())
		}
		if file == ManifestFile {
			if hdr.Size > int64(maxManifestBytes) {
				return "", entryError(name, ErrInvalid, "size %d, more than %d bytes", hdr.Size, maxManifestBytes)
			}
			raw, err := io.ReadAll(tr)
			if err != nil {
				return "", entryError(name, ErrInvalid, "%v", err)
			}
			m = new(Manifest)
			if err := json.Unmarshal(raw, m); err != nil {
				return "", entryError(name, ErrInvalid, "parse: %v", err)
			}
			if err := writeEntry(root, top+"/"+file, bytes.NewReader(raw), hdr.Size); err != nil {
				return "", entryError(name, ErrInvalid, "%v", err)
			}
			continue
		}
		if m == nil {
			return "", entryError(name, ErrInvalid, "comes before %s (archives made by Pack start with it)", ManifestFile)
		}
		want, ok := m.Files[file]
		if !ok {
			return "", entryError(name, ErrInvalid, "a file the manifest does not list")
		}
		if hdr.Size != want.Bytes {
			return "", entryError(name, ErrInvalid, "size %d, manifest says %d", hdr.Size, want.Bytes)
		}
		if err := writeEntry(root, top+"/"+file, tr, hdr.Size); err != nil {
			return "", entryError(name, ErrInvalid, "%v", err)
		}
	}
	if m == nil {
		return "", fmt.Errorf("%w: the archive holds no %s", ErrInvalid, ManifestFile)
	}
	return top, nil
}

// writeEntry creates name below root, which must not exist yet, with size
// bytes of r.
func writeEntry(root *os.Root, name string, r io.Reader, size int64) (err error) {
	out, err := root.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, out.Close()) }()
	if _, err := io.CopyN(out, r, size); errors.Is(err, io.EOF) {
		return errors.New("the archive ends inside the entry")
	} else if err != nil {
		return err
	}
	return nil
}

func typeName(flag byte) string {
	switch flag {
	case tar.TypeSymlink:
		return "a symbolic link"
	case tar.TypeLink:
		return "a hard link"
	case tar.TypeChar, tar.TypeBlock:
		return "a device"
	case tar.TypeFifo:
		return "a named pipe"
	case tar.TypeXGlobalHeader:
		return "a global header"
	case tar.TypeGNUSparse:
		return "a sparse file"
	}
	return fmt.Sprintf("an entry of type %q", flag)
}
