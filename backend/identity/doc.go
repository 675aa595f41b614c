// Package identity holds Weald's key types, ids, principals, labelled
// signatures, delegation certificates and the recovery phrase
// (gaps.md "Identity and the roster", "Agents"; conventions.md).
//
// # Keys you cannot misuse
//
// Every signature key is an Ed25519 key of one kind: [DevicePrivate],
// [AgentPrivate], [RecoveryPrivate], [GenesisPrivate] and [InviteProofPrivate]
// and their public halves. Keys of different kinds are different Go types, so
// a device key cannot be passed where an agent key is expected. Key values
// are not comparable with == (use Equal), print with a kind prefix and a
// ShortString, and private keys never print their secret bytes through fmt
// (every verb prints the prefix and the public key's short form).
//
// # Ids and principals
//
// Ids are 32 bytes. device_id, agent_id and recovery_id are SHA-256 of the
// principal's Ed25519 public key (conventions.md); user_id is 32 random
// bytes. A [Principal] is a kind and an id.
//
// # Signatures
//
// Every Weald signature is Ed25519 over the canonical encoding of
//
//	struct { opaque label<V> = "weald 1 " + Label; opaque content<V>; }
//
// (conventions.md), so no signed object can be replayed as another kind.
//
// The protocol is written down in docs/protocol/identity.md.
package identity
