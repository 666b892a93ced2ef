package consolidate

import (
	"fmt"
	"io"
	"os"
)

// MaxOverridesBytes bounds an overrides file. A decision takes one to two
// hundred bytes, so the limit holds some twenty thousand of them;
// decoding takes about a hundred and fifty times the file's size in
// memory, so a file of tens of megabytes would take gigabytes of a build.
const MaxOverridesBytes = 4 << 20

// readOverrides reads an overrides file of at most MaxOverridesBytes; a
// larger one is refused before it is read (or, when it grows meanwhile,
// at the limit). A file that does not exist is os.ErrNotExist.
func readOverrides(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }() // read only
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > MaxOverridesBytes {
		return nil, overridesTooLarge(fi.Size())
	}
	raw, err := io.ReadAll(io.LimitReader(f, MaxOverridesBytes+1))
	if err != nil {
		return nil, err
	}
	if len(raw) > MaxOverridesBytes {
		return nil, overridesTooLarge(int64(len(raw)))
	}
	return raw, nil
}

func overridesTooLarge(size int64) error {
	return fmt.Errorf("%d bytes, over the limit of %d bytes (4 MiB) for an overrides file: is it the right file?", size, MaxOverridesBytes)
}
