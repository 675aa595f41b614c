//go:build !unix

package mls

func processCPU() int64 { return 0 }
