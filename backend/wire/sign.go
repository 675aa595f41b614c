package wire

import (
	"crypto/ed25519"
	"errors"

	"weald/backend/internal/codec"
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
	LabelTeardown             = "teardown"
)

// ErrBadSignature is returned by [Verify] when the signature does not verify.
var ErrBadSignature = errors.New("wire: signature does not verify")

// SignContent returns the bytes an Ed25519 signature covers for label and
// content ([codec.SignedContent]): struct { opaque label<V> = "weald 1 " +
// label; opaque content<V>; }. It is nil for content too long to encode.
func SignContent(label string, content []byte) []byte {
	return codec.SignedContent(label, content)
}

// Sign signs content under label with priv. Content too long to encode
// (over 2^30-1 bytes) gets no signature (nil), which no key verifies.
func Sign(priv ed25519.PrivateKey, label string, content []byte) []byte {
	msg := SignContent(label, content)
	if msg == nil {
		return nil
	}
	return ed25519.Sign(priv, msg)
}

// Verify checks sig over content under label with pub. It returns
// [ErrBadSignature] for a wrong signature and for a malformed key or signature.
func Verify(pub []byte, label string, content, sig []byte) error {
	if len(pub) != ed25519.PublicKeySize || len(sig) != ed25519.SignatureSize {
		return ErrBadSignature
	}
	msg := SignContent(label, content)
	if msg == nil || !ed25519.Verify(ed25519.PublicKey(pub), msg, sig) {
		return ErrBadSignature
	}
	return nil
}
