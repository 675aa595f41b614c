package secrettree

import "weald/backend/mls/suite"

// SenderDataKeyNonce derives the key and nonce that protect a
// PrivateMessage's sender data (RFC 9420 §6.3.2):
//
//	ciphertext_sample = ciphertext[0..KDF.Nh-1]
//	sender_data_key   = ExpandWithLabel(sender_data_secret, "key", ciphertext_sample, AEAD.Nk)
//	sender_data_nonce = ExpandWithLabel(sender_data_secret, "nonce", ciphertext_sample, AEAD.Nn)
//
// A ciphertext shorter than Nh is used whole.
func SenderDataKeyNonce(s *suite.Suite, senderDataSecret, ciphertext []byte) (key, nonce []byte) {
	sample := ciphertext
	if len(sample) > s.Nh() {
		sample = sample[:s.Nh()]
	}
	key, _ = s.ExpandWithLabel(senderDataSecret, "key", sample, s.Nk())
	nonce, _ = s.ExpandWithLabel(senderDataSecret, "nonce", sample, s.Nn())
	return key, nonce
}
