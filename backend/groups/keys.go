package groups

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/sha256"
	"fmt"
	"io"

	"weald/backend/internal/codec"
)

// Exporter labels (docs/protocol/groups.md).
const (
	LabelEnrolment     = "weald/enrolment"
	LabelContent       = "weald/content"
	LabelMemberHistory = "weald/history-member"
)

// Exporter is what the package needs of an MLS group epoch: its
// MLS-Exporter (RFC 9420 §8.5).
type Exporter interface {
	Export(label string, context []byte, length int) ([]byte, error)
}

// EnrolmentSecret is MLS-Exporter(root epoch, "weald/enrolment", "", 32).
func EnrolmentSecret(root Exporter) ([]byte, error) {
	return root.Export(LabelEnrolment, nil, 32)
}

// MemberHistorySecret is MLS-Exporter(epoch, "weald/history-member", "",
// 32): the secret that seals an open group's history keys to its current
// members (BundleMemberHistory), for a member that is not in the workspace
// root and so holds no enrolment secret: an agent (docs/protocol/agents.md
// "Reading").
func MemberHistorySecret(g Exporter) ([]byte, error) { return g.Export(LabelMemberHistory, nil, 32) }

// EnrolmentKey is HMAC-SHA256(enrolment secret, "weald/enrolment-key" ‖ child):
// the key that seals child group's standing bundles under one root epoch.
func EnrolmentKey(secret []byte, child [32]byte) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("weald/enrolment-key"))
	m.Write(child[:])
	return m.Sum(nil)
}

// ContentEpochKey is MLS-Exporter(epoch, "weald/content", "", 32): the content
// key of a closed group's epoch.
func ContentEpochKey(g Exporter) ([]byte, error) { return g.Export(LabelContent, nil, 32) }

// HistoryKey is one history key of an open group.
type HistoryKey struct {
	ID  [32]byte
	Key []byte
}

// NewHistoryKey draws a fresh 32-byte history key.
func NewHistoryKey(rand io.Reader) (HistoryKey, error) {
	k := make([]byte, 32)
	if _, err := io.ReadFull(rand, k); err != nil {
		return HistoryKey{}, err
	}
	return HistoryKeyOf(k), nil
}

// HistoryKeyOf names a key: id = SHA-256("weald/history-key" ‖ key).
func HistoryKeyOf(k []byte) HistoryKey {
	h := sha256.New()
	h.Write([]byte("weald/history-key"))
	h.Write(k)
	var id [32]byte
	copy(id[:], h.Sum(nil))
	return HistoryKey{ID: id, Key: append([]byte(nil), k...)}
}

func gcm(key []byte) (cipher.AEAD, error) {
	if len(key) != 32 {
		return nil, fmt.Errorf("%w: key is %d bytes, want 32", ErrNoKey, len(key))
	}
	b, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(b)
}

func seal(rand io.Reader, key, aad, plain []byte) (nonce [12]byte, ct []byte, err error) {
	a, err := gcm(key)
	if err != nil {
		return nonce, nil, err
	}
	if _, err := io.ReadFull(rand, nonce[:]); err != nil {
		return nonce, nil, err
	}
	return nonce, a.Seal(nil, nonce[:], plain, aad), nil
}

func open(key []byte, nonce [12]byte, aad, ct []byte) ([]byte, error) {
	a, err := gcm(key)
	if err != nil {
		return nil, err
	}
	pt, err := a.Open(nil, nonce[:], ct, aad)
	if err != nil {
		return nil, ErrOpen
	}
	return pt, nil
}

func labelled(label string, body func(w *codec.Writer)) []byte {
	var w codec.Writer
	w.String("weald 1 " + label)
	body(&w)
	return w.Bytes()
}

// maxBlob bounds any opaque field read here (an envelope ct is at most 16 MiB).
const maxBlob = 16 << 20
