package keyschedule

import (
	"weald/backend/internal/codec"
	"weald/backend/mls/suite"
)

// ConfirmedTranscriptHash is RFC 9420 §8.2:
//
//	confirmed_transcript_hash_[epoch] =
//	    Hash(interim_transcript_hash_[epoch - 1] || ConfirmedTranscriptHashInput_[epoch])
//
// where confirmedInput is the encoded ConfirmedTranscriptHashInput
// (wire_format, the commit's FramedContent and its signature).
func ConfirmedTranscriptHash(s *suite.Suite, interimBefore, confirmedInput []byte) []byte {
	h := s.NewHash()
	h.Write(interimBefore)
	h.Write(confirmedInput)
	return h.Sum(nil)
}

// InterimTranscriptHash is RFC 9420 §8.2:
//
//	interim_transcript_hash_[epoch] =
//	    Hash(confirmed_transcript_hash_[epoch] || InterimTranscriptHashInput_[epoch])
//	struct { MAC confirmation_tag; } InterimTranscriptHashInput;  // MAC is opaque<V>
func InterimTranscriptHash(s *suite.Suite, confirmed, confirmationTag []byte) []byte {
	var scratch [80]byte
	w := codec.NewWriter(scratch[:])
	w.Opaque(confirmationTag)
	h := s.NewHash()
	h.Write(confirmed)
	h.Write(w.Bytes())
	return h.Sum(nil)
}

// ConfirmationTag is MAC(confirmation_key, confirmed_transcript_hash)
// (RFC 9420 §6.1).
func ConfirmationTag(s *suite.Suite, confirmationKey, confirmedTranscriptHash []byte) []byte {
	return s.MAC(confirmationKey, confirmedTranscriptHash)
}
