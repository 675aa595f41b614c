package wire

import (
	"crypto/ed25519"
	"errors"
)

// Labels of the Weald signatures this package defines; the signed label is
// "weald 1 " + Label.
const (
	LabelEnvelope             = "envelope"
	LabelAccessSet            = "access-set"
	LabelAuthChallenge        = "auth-challenge"
	LabelGrantAuth            = "grant-auth"
	LabelCheckpoint           = "checkpoint"
	LabelDropBefore           = "drop-before"
	LabelRetentionTransition  = "retention-transition"
	LabelRetentionPolicy      = "retention-policy"
	LabelRetentionDestruction = "retention-destruction"
	LabelRetentionResolution  = "retention-resolution"
)

// labelPrefix is prepended to every Label.
const labelPrefix = "weald 1 "

// ErrBadSignature is returned by [Verify] when the signature does not verify.
var ErrBadSignature = errors.New("wire: signature does not verify")

// SignContent returns the bytes an Ed25519 signature covers for label and
// content: struct { opaque label<V>; opaque content<V>; }.
func SignContent(label string, content []byte) []byte {
	w := writer{b: make([]byte, 0, len(labelPrefix)+len(label)+len(content)+8)}
	w.str(labelPrefix + label)
	w.opaque(content)
	return w.b
}

// Sign signs content under label with priv.
func Sign(priv ed25519.PrivateKey, label string, content []byte) []byte {
	return ed25519.Sign(priv, SignContent(label, content))
}

// Verify checks sig over content under label with pub. It returns
// [ErrBadSignature] for a wrong signature and for a malformed key or signature.
func Verify(pub []byte, label string, content, sig []byte) error {
	if len(pub) != ed25519.PublicKeySize || len(sig) != ed25519.SignatureSize {
		return ErrBadSignature
	}
	if !ed25519.Verify(ed25519.PublicKey(pub), SignContent(label, content), sig) {
		return ErrBadSignature
	}
	return nil
}
