package framing

import (
	"fmt"
	"io"

	"weald/backend/internal/codec"
	"weald/backend/mls/secrettree"
	"weald/backend/mls/suite"
	"weald/backend/mls/treemath"
)

// PrivateMessage is RFC 9420 §6.3:
//
//	struct {
//	    opaque group_id<V>;
//	    uint64 epoch;
//	    ContentType content_type;
//	    opaque authenticated_data<V>;
//	    opaque encrypted_sender_data<V>;
//	    opaque ciphertext<V>;
//	} PrivateMessage;
type PrivateMessage struct {
	GroupID             []byte
	Epoch               uint64
	ContentType         ContentType
	AuthenticatedData   []byte
	EncryptedSenderData []byte
	Ciphertext          []byte
}

// Encode writes the PrivateMessage.
func (p *PrivateMessage) Encode(w *codec.Writer) {
	w.Opaque(p.GroupID)
	w.U64(p.Epoch)
	w.U8(uint8(p.ContentType))
	w.Opaque(p.AuthenticatedData)
	w.Opaque(p.EncryptedSenderData)
	w.Opaque(p.Ciphertext)
}

func decodePrivateMessage(r *codec.Reader) *PrivateMessage {
	p := &PrivateMessage{
		GroupID:     r.OpaqueCopy(),
		Epoch:       r.U64(),
		ContentType: ContentType(r.U8()),
	}
	p.AuthenticatedData = r.OpaqueCopy()
	p.EncryptedSenderData = r.OpaqueCopy()
	p.Ciphertext = r.OpaqueCopy()
	if r.Err() == nil && !p.ContentType.valid() {
		r.Fail(fmt.Errorf("%w: content type %d", ErrDecode, p.ContentType))
	}
	return p
}

// contentAAD encodes PrivateContentAAD (RFC 9420 §6.3.1):
//
//	struct { opaque group_id<V>; uint64 epoch; ContentType content_type; opaque authenticated_data<V>; } PrivateContentAAD;
func contentAAD(groupID []byte, epoch uint64, ct ContentType, ad []byte) []byte {
	w := codec.NewWriter(make([]byte, 0, 32+len(groupID)+len(ad)))
	w.Opaque(groupID)
	w.U64(epoch)
	w.U8(uint8(ct))
	w.Opaque(ad)
	return w.Bytes()
}

// senderDataAAD encodes SenderDataAAD (RFC 9420 §6.3.2):
//
//	struct { opaque group_id<V>; uint64 epoch; ContentType content_type; } SenderDataAAD;
func senderDataAAD(groupID []byte, epoch uint64, ct ContentType) []byte {
	w := codec.NewWriter(make([]byte, 0, 16+len(groupID)))
	w.Opaque(groupID)
	w.U64(epoch)
	w.U8(uint8(ct))
	return w.Bytes()
}

func ratchetFor(ct ContentType) secrettree.RatchetType {
	if ct == ContentApplication {
		return secrettree.Application
	}
	return secrettree.Handshake
}

// applyReuseGuard XORs the 4-byte reuse_guard into the first bytes of the
// nonce (RFC 9420 §6.3.1), returning a new slice.
func applyReuseGuard(nonce []byte, guard [4]byte) []byte {
	n := append([]byte(nil), nonce...)
	for i := range guard {
		n[i] ^= guard[i]
	}
	return n
}

// Encrypt protects ac (wire format mls_private_message, sender a member)
// as a PrivateMessage (RFC 9420 §6.3): the content is encrypted with the
// next key of the sender's ratchet in st (handshake for proposals and
// commits, application for application data), the sender data under
// senderDataSecret. The plaintext is zero-padded to a multiple of padBlock
// bytes (no padding if padBlock ≤ 1). rand supplies the reuse guard.
func Encrypt(s *suite.Suite, rand io.Reader, st *secrettree.Tree, senderDataSecret []byte, ac *AuthenticatedContent, padBlock int) (*PrivateMessage, error) {
	c := &ac.Content
	if ac.WireFormat != WireFormatPrivateMessage {
		return nil, fmt.Errorf("%w: wire format %d is not private_message", ErrContentMismatch, ac.WireFormat)
	}
	if c.Sender.Type != SenderMember {
		return nil, ErrSender
	}
	if !c.ContentType.valid() {
		return nil, fmt.Errorf("%w: content type %d", ErrDecode, c.ContentType)
	}
	var guard [4]byte
	if _, err := io.ReadFull(rand, guard[:]); err != nil {
		return nil, err
	}
	// PrivateMessageContent: body, auth, zero padding.
	w := codec.NewWriter(make([]byte, 0, 256+len(c.ApplicationData)))
	c.encodeBody(w)
	ac.Auth.encode(w, c.ContentType)
	if padBlock > 1 {
		if rem := w.Len() % padBlock; rem != 0 {
			w.Raw(make([]byte, padBlock-rem))
		}
	}
	if err := w.Err(); err != nil {
		return nil, err
	}
	kn, err := st.Next(treemath.LeafIndex(c.Sender.Index), ratchetFor(c.ContentType))
	if err != nil {
		return nil, err
	}
	ct, err := s.Seal(nil, kn.Key, applyReuseGuard(kn.Nonce, guard),
		contentAAD(c.GroupID, c.Epoch, c.ContentType, c.AuthenticatedData), w.Bytes())
	if err != nil {
		return nil, err
	}
	// SenderData { uint32 leaf_index; uint32 generation; opaque reuse_guard[4]; }
	var sd [12]byte
	sw := codec.NewWriter(sd[:])
	sw.U32(c.Sender.Index)
	sw.U32(kn.Generation)
	sw.Raw(guard[:])
	key, nonce := secrettree.SenderDataKeyNonce(s, senderDataSecret, ct)
	esd, err := s.Seal(nil, key, nonce, senderDataAAD(c.GroupID, c.Epoch, c.ContentType), sw.Bytes())
	if err != nil {
		return nil, err
	}
	return &PrivateMessage{GroupID: c.GroupID, Epoch: c.Epoch, ContentType: c.ContentType,
		AuthenticatedData: c.AuthenticatedData, EncryptedSenderData: esd, Ciphertext: ct}, nil
}

// Decrypted is a PrivateMessage whose ciphertext has been authenticated
// and decrypted. Its content signature is not yet verified.
type Decrypted struct {
	Content    *AuthenticatedContent
	Leaf       treemath.LeafIndex
	Generation uint32
	Ratchet    secrettree.RatchetType
}

// Consume deletes the key used by the message from st (RFC 9420 §9.2);
// call it once the message has been fully accepted.
func (d *Decrypted) Consume(st *secrettree.Tree) error {
	_, err := st.Consume(d.Leaf, d.Ratchet, d.Generation)
	return err
}

// Decrypt opens a PrivateMessage (RFC 9420 §6.3): it decrypts the sender
// data, looks up the content key in st without changing st, decrypts the
// content and checks that the padding is all zero. The sender's leaf
// index is not checked against the membership: the caller does that and
// verifies the signature before calling [Decrypted.Consume].
func Decrypt(s *suite.Suite, st *secrettree.Tree, senderDataSecret []byte, pm *PrivateMessage) (*Decrypted, error) {
	if !pm.ContentType.valid() {
		return nil, fmt.Errorf("%w: content type %d", ErrDecode, pm.ContentType)
	}
	key, nonce := secrettree.SenderDataKeyNonce(s, senderDataSecret, pm.Ciphertext)
	sd, err := s.Open(nil, key, nonce, senderDataAAD(pm.GroupID, pm.Epoch, pm.ContentType), pm.EncryptedSenderData)
	if err != nil {
		return nil, fmt.Errorf("%w: sender data: %w", ErrDecrypt, err)
	}
	r := codec.NewReader(sd)
	leaf := r.U32()
	gen := r.U32()
	var guard [4]byte
	copy(guard[:], r.Raw(4))
	if err := r.Done(); err != nil {
		return nil, fmt.Errorf("%w: sender data: %w", ErrDecode, err)
	}
	typ := ratchetFor(pm.ContentType)
	kn, err := st.Key(treemath.LeafIndex(leaf), typ, gen)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrDecrypt, err)
	}
	pt, err := s.Open(nil, kn.Key, applyReuseGuard(kn.Nonce, guard),
		contentAAD(pm.GroupID, pm.Epoch, pm.ContentType, pm.AuthenticatedData), pm.Ciphertext)
	if err != nil {
		return nil, fmt.Errorf("%w: content: %w", ErrDecrypt, err)
	}
	fc := FramedContent{GroupID: pm.GroupID, Epoch: pm.Epoch, Sender: Member(leaf),
		AuthenticatedData: pm.AuthenticatedData, ContentType: pm.ContentType}
	cr := codec.NewReader(pt)
	fc.decodeBody(cr)
	auth := decodeAuthData(cr, pm.ContentType)
	if cr.Err() != nil {
		return nil, fmt.Errorf("%w: private message content: %w", ErrDecode, cr.Err())
	}
	for _, b := range cr.Raw(cr.Len()) {
		if b != 0 {
			return nil, ErrPadding
		}
	}
	return &Decrypted{
		Content:    &AuthenticatedContent{WireFormat: WireFormatPrivateMessage, Content: fc, Auth: auth},
		Leaf:       treemath.LeafIndex(leaf),
		Generation: gen,
		Ratchet:    typ,
	}, nil
}
