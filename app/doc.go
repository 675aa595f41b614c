// Package app holds the services the desktop window binds: thin methods that
// validate, call backend/ and return DTOs. It is the only Go package of Weald
// that may import Wails (architecture.md "Layers"); everything it binds must
// also work without a window, so that the e2e build (package app/shim) can
// serve the same methods over plain HTTP to a browser.
package app
