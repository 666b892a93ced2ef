package review

import "time"

// SetLockWait sets how long a decision waits for the overrides file's
// lock, and returns the function that restores it.
func SetLockWait(d time.Duration) func() {
	old := lockWait
	lockWait = d
	return func() { lockWait = old }
}
