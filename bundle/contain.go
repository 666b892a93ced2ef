package bundle

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
)

// Containing returns the bundle directory that path lies in, its
// symbolic links resolved (path itself need not exist); "" when it lies in
// none. A directory is a bundle when its manifest names Format. Writers of
// files outside a bundle (the metrics file of a build) call it to refuse
// a path that would add a file to a bundle or replace one of its files.
func Containing(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	dir, err := resolveExisting(filepath.Dir(abs))
	if err != nil {
		return "", err
	}
	for {
		if isBundleDir(dir) {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", nil
		}
		dir = up
	}
}

// resolveExisting resolves the symbolic links of dir's deepest existing
// ancestor and appends the rest of dir to it.
func resolveExisting(dir string) (string, error) {
	rest := ""
	for {
		resolved, err := filepath.EvalSymlinks(dir)
		if err == nil {
			return filepath.Join(resolved, rest), nil
		}
		if !errors.Is(err, os.ErrNotExist) {
			return "", err
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", err
		}
		rest = filepath.Join(filepath.Base(dir), rest)
		dir = up
	}
}

// isBundleDir reports whether dir holds a manifest that names Format.
func isBundleDir(dir string) bool {
	f, err := os.Open(filepath.Join(dir, ManifestFile))
	if err != nil {
		return false
	}
	defer func() { _ = f.Close() }() // read only
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return false
	}
	var m struct {
		Format string `json:"format"`
	}
	return json.NewDecoder(io.LimitReader(f, 64<<20)).Decode(&m) == nil && m.Format == Format
}
