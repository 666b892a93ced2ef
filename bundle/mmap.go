package bundle

import (
	"fmt"
	"os"
	"syscall"
)

// mapFile maps size bytes of f read-only into memory. syscall.Mmap is Unix
// only; kgforge is built for Linux (the Dockerfile) and runs on macOS.
func mapFile(f *os.File, size int64) ([]byte, error) {
	if int64(int(size)) != size {
		return nil, fmt.Errorf("%d bytes do not fit in the address space", size)
	}
	return syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
}

func unmapFile(b []byte) error { return syscall.Munmap(b) }
