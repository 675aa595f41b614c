package relayclient

import "time"

// SetPreAuthTimeout sets the bound of an exchange before authentication
// for one test and returns what restores it.
func SetPreAuthTimeout(d time.Duration) (restore func()) {
	old := preAuthTimeout
	preAuthTimeout = d
	return func() { preAuthTimeout = old }
}
