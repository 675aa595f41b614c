// Package framing implements MLS message framing, RFC 9420 §6: the
// FramedContent of proposals, commits and application data with its
// Sender (§6), the signed FramedContentTBS and FramedContentAuthData
// (§6.1), AuthenticatedContent, PublicMessage with its membership tag
// (§6.2), PrivateMessage with content encryption under the secret tree,
// sender-data encryption and zero padding (§6.3), and the MLSMessage
// envelope with its wire formats (§6).
//
// # Trust
//
// Decoders check syntax only and never panic. A decoded message is not
// authentic until the caller has checked it: [PublicMessage.VerifyMembershipTag]
// for member senders, then [AuthenticatedContent.VerifySignature] with the
// sender's signature key (which only the group layer knows), and for
// commits the confirmation tag. [Decrypt] authenticates a PrivateMessage's
// ciphertext under the secret tree but leaves the tree unchanged; after
// the signature verifies, the caller consumes the key with
// [Decrypted.Consume], so a rejected message leaves the state as it was.
//
// Bodies of Welcome, GroupInfo and KeyPackage messages are defined in
// other packages; an [MLSMessage] carries them as raw bytes.
package framing
