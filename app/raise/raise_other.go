//go:build !linux || !cgo

package raise

// WithToken does nothing here: the desktop build's window toolkit is GTK on Linux only.
func WithToken(string) {}
