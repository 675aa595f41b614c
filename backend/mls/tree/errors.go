package tree

import (
	"weald/backend/errcode"
)

// Sentinel errors, checked with errors.Is. Each message starts with a stable
// code "mls/tree/<name>" followed by one plain sentence; wrapped errors add
// what was being checked.
var (
	ErrDecode             = errcode.New("mls/tree/decode", "the structure is malformed")
	ErrUnsupported        = errcode.New("mls/tree/unsupported", "the value is not supported")
	ErrBadSignature       = errcode.New("mls/tree/bad_signature", "a signature does not verify")
	ErrLeafSource         = errcode.New("mls/tree/leaf_source", "the leaf node has the wrong source for where it is used")
	ErrLifetime           = errcode.New("mls/tree/lifetime", "the key package or leaf node is not valid at this time")
	ErrCapabilities       = errcode.New("mls/tree/capabilities", "the member does not support what the group requires")
	ErrCredential         = errcode.New("mls/tree/credential", "the credential was not accepted")
	ErrDuplicateKey       = errcode.New("mls/tree/duplicate_key", "an encryption or signature key is used twice in the tree")
	ErrTreeHash           = errcode.New("mls/tree/tree_hash", "the tree hash does not match")
	ErrParentHash         = errcode.New("mls/tree/parent_hash", "a parent hash does not verify")
	ErrTreeShape          = errcode.New("mls/tree/shape", "the tree is not a valid ratchet tree")
	ErrUnmergedLeaves     = errcode.New("mls/tree/unmerged_leaves", "a parent node's unmerged leaves are invalid")
	ErrLeafIndex          = errcode.New("mls/tree/leaf_index", "the leaf index is outside the tree or blank")
	ErrPathLength         = errcode.New("mls/tree/path_length", "the update path does not match the sender's filtered direct path")
	ErrPathKey            = errcode.New("mls/tree/path_key", "a derived public key does not match the update path")
	ErrNoPathSecret       = errcode.New("mls/tree/no_path_secret", "no path secret could be decrypted for this member")
	ErrKeyPackage         = errcode.New("mls/tree/key_package", "the key package is invalid")
	ErrVersionOrSuite     = errcode.New("mls/tree/version_or_suite", "the protocol version or cipher suite does not match")
	ErrExtensionSupported = errcode.New("mls/tree/extension_unsupported", "an extension is used that the leaf's capabilities do not list")
)
