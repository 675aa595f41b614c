package tree

import "errors"

// Sentinel errors, checked with errors.Is. Each message starts with a stable
// code "mls/tree/<name>" followed by one plain sentence; wrapped errors add
// what was being checked.
var (
	ErrDecode             = errors.New("mls/tree/decode: the structure is malformed")
	ErrUnsupported        = errors.New("mls/tree/unsupported: the value is not supported")
	ErrBadSignature       = errors.New("mls/tree/bad_signature: a signature does not verify")
	ErrLeafSource         = errors.New("mls/tree/leaf_source: the leaf node has the wrong source for where it is used")
	ErrLifetime           = errors.New("mls/tree/lifetime: the key package or leaf node is not valid at this time")
	ErrCapabilities       = errors.New("mls/tree/capabilities: the member does not support what the group requires")
	ErrCredential         = errors.New("mls/tree/credential: the credential was not accepted")
	ErrDuplicateKey       = errors.New("mls/tree/duplicate_key: an encryption or signature key is used twice in the tree")
	ErrTreeHash           = errors.New("mls/tree/tree_hash: the tree hash does not match")
	ErrParentHash         = errors.New("mls/tree/parent_hash: a parent hash does not verify")
	ErrTreeShape          = errors.New("mls/tree/shape: the tree is not a valid ratchet tree")
	ErrUnmergedLeaves     = errors.New("mls/tree/unmerged_leaves: a parent node's unmerged leaves are invalid")
	ErrLeafIndex          = errors.New("mls/tree/leaf_index: the leaf index is outside the tree or blank")
	ErrPathLength         = errors.New("mls/tree/path_length: the update path does not match the sender's filtered direct path")
	ErrPathKey            = errors.New("mls/tree/path_key: a derived public key does not match the update path")
	ErrNoPathSecret       = errors.New("mls/tree/no_path_secret: no path secret could be decrypted for this member")
	ErrKeyPackage         = errors.New("mls/tree/key_package: the key package is invalid")
	ErrVersionOrSuite     = errors.New("mls/tree/version_or_suite: the protocol version or cipher suite does not match")
	ErrExtensionSupported = errors.New("mls/tree/extension_unsupported: an extension is used that the leaf's capabilities do not list")
)
