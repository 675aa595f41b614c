package main

import "testing"

func TestDebVersion(t *testing.T) {
	for in, want := range map[string]string{
		"v1.2.3":                   "1.2.3",
		"v1.2.3-dirty":             "1.2.3+dirty",
		"v0.0.0-336-g422751220c5d": "0.0.0+git336.g422751220c5d",
		"v0.0.0-3-gabc1234-dirty":  "0.0.0+git3.gabc1234.dirty",
		"0.1.0":                    "0.1.0",
		"not a version; rm -rf /":  "0.0.0+unknown",
		"":                         "0.0.0+unknown",
	} {
		if got := debVersion(in); got != want {
			t.Errorf("debVersion(%q) = %q, want %q", in, got, want)
		}
	}
}
