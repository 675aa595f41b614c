// Package keyschedule implements the MLS key schedule of RFC 9420 §8: the
// GroupContext (§8.1), transcript hashes (§8.2), the epoch secrets derived
// from init_secret, commit_secret and psk_secret (§8), external
// initialisation (§8.3), pre-shared keys and psk_secret (§8.4), the
// exporter (§8.5), resumption PSKs (§8.6), the epoch authenticator (§8.7)
// and the Welcome key and nonce (§12.4.3.1).
package keyschedule

import (
	"weald/backend/errcode"
	"weald/backend/internal/codec"
	"weald/backend/mls/tree"
)

// ProtocolVersionMLS10 is ProtocolVersion mls10 (RFC 9420 §6).
const ProtocolVersionMLS10 uint16 = 1

// ErrBadGroupContext is returned when a GroupContext does not decode.
var ErrBadGroupContext = errcode.New("mls/keyschedule/bad_group_context", "the group context is invalid")

// GroupContext is RFC 9420 §8.1:
//
//	struct {
//	    ProtocolVersion version = mls10;
//	    CipherSuite cipher_suite;
//	    opaque group_id<V>;
//	    uint64 epoch;
//	    opaque tree_hash<V>;
//	    opaque confirmed_transcript_hash<V>;
//	    Extension extensions<V>;
//	} GroupContext;
type GroupContext struct {
	Version                 uint16
	CipherSuite             uint16
	GroupID                 []byte
	Epoch                   uint64
	TreeHash                []byte
	ConfirmedTranscriptHash []byte
	Extensions              tree.Extensions
}

// Encode writes the encoding of g.
func (g *GroupContext) Encode(w *codec.Writer) {
	w.U16(g.Version)
	w.U16(g.CipherSuite)
	w.Opaque(g.GroupID)
	w.U64(g.Epoch)
	w.Opaque(g.TreeHash)
	w.Opaque(g.ConfirmedTranscriptHash)
	g.Extensions.Encode(w)
}

// Bytes returns the encoding of g.
func (g *GroupContext) Bytes() []byte {
	w := codec.NewWriter(make([]byte, 0, 128+len(g.GroupID)))
	g.Encode(w)
	return w.Bytes()
}

// DecodeGroupContext reads a GroupContext. The version must be mls10;
// the cipher suite is not checked here.
func DecodeGroupContext(r *codec.Reader) GroupContext {
	var g GroupContext
	g.Version = r.U16()
	g.CipherSuite = r.U16()
	g.GroupID = r.OpaqueCopy()
	g.Epoch = r.U64()
	g.TreeHash = r.OpaqueCopy()
	g.ConfirmedTranscriptHash = r.OpaqueCopy()
	g.Extensions = tree.DecodeExtensions(r)
	if r.Err() == nil && g.Version != ProtocolVersionMLS10 {
		r.Fail(ErrBadGroupContext)
	}
	return g
}

// Clone returns a deep copy of g.
func (g *GroupContext) Clone() GroupContext {
	c := *g
	c.GroupID = clone(g.GroupID)
	c.TreeHash = clone(g.TreeHash)
	c.ConfirmedTranscriptHash = clone(g.ConfirmedTranscriptHash)
	if g.Extensions != nil {
		c.Extensions = make(tree.Extensions, len(g.Extensions))
		for i, e := range g.Extensions {
			c.Extensions[i] = tree.Extension{Type: e.Type, Data: clone(e.Data)}
		}
	}
	return c
}

func clone(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append([]byte{}, b...)
}
