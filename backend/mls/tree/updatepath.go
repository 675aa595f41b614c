package tree

import (
	"fmt"

	"weald/backend/internal/codec"
)

// HPKECiphertext is RFC 9420 §7.6 HPKECiphertext.
type HPKECiphertext struct {
	KEMOutput  []byte
	Ciphertext []byte
}

// Encode writes the ciphertext.
func (c *HPKECiphertext) Encode(w *codec.Writer) {
	w.Opaque(c.KEMOutput)
	w.Opaque(c.Ciphertext)
}

// Decode reads a ciphertext.
func (c *HPKECiphertext) Decode(r *codec.Reader) {
	c.KEMOutput = r.OpaqueCopy()
	c.Ciphertext = r.OpaqueCopy()
}

// UpdatePathNode is RFC 9420 §7.6 UpdatePathNode.
type UpdatePathNode struct {
	EncryptionKey       []byte
	EncryptedPathSecret []HPKECiphertext
}

// UpdatePath is RFC 9420 §7.6 UpdatePath: the committer's new leaf and one
// node per entry of its filtered direct path.
type UpdatePath struct {
	LeafNode LeafNode
	Nodes    []UpdatePathNode
}

// Encode writes the update path.
func (u *UpdatePath) Encode(w *codec.Writer) {
	u.LeafNode.Encode(w)
	w.Vector(func(w *codec.Writer) {
		for i := range u.Nodes {
			n := &u.Nodes[i]
			w.Opaque(n.EncryptionKey)
			w.Vector(func(w *codec.Writer) {
				for j := range n.EncryptedPathSecret {
					n.EncryptedPathSecret[j].Encode(w)
				}
			})
		}
	})
}

// Decode reads an update path (syntax only).
func (u *UpdatePath) Decode(r *codec.Reader) {
	u.LeafNode.Decode(r)
	u.Nodes = nil
	r.Vector(func(r *codec.Reader) {
		var n UpdatePathNode
		n.EncryptionKey = r.OpaqueCopy()
		r.Vector(func(r *codec.Reader) {
			var c HPKECiphertext
			c.Decode(r)
			n.EncryptedPathSecret = append(n.EncryptedPathSecret, c)
		})
		u.Nodes = append(u.Nodes, n)
	})
}

// Bytes returns the encoding of the update path.
func (u *UpdatePath) Bytes() []byte {
	w := codec.NewWriter(nil)
	u.Encode(w)
	return w.Bytes()
}

// DecodeUpdatePath decodes exactly one UpdatePath from b.
func DecodeUpdatePath(b []byte) (*UpdatePath, error) {
	r := codec.NewReader(b)
	u := new(UpdatePath)
	u.Decode(r)
	if err := r.Done(); err != nil {
		return nil, fmt.Errorf("%w: update path: %w", ErrDecode, err)
	}
	return u, nil
}
