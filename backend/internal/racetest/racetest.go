// Package racetest says whether the test binary runs under the race
// detector. A test whose size adds nothing there (one operation repeated
// thousands of times, not more goroutines) runs smaller under -race; the
// plain run keeps the full size. Every test that reads [Enabled] is named in
// .ci/test.sh's full_size list, which make test runs without -race, so the
// full size is still checked on every run (CONTRIBUTING.md "Running the
// suite"); TestReadersAreRunAtFullSize keeps that list true. A test of many
// cases that each repeat one scene may run some of them only.
package racetest
