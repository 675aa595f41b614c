package tree_test

import (
	"bytes"
	"testing"

	"weald/backend/mls/internal/mlstest"
	"weald/backend/mls/proposal"
	"weald/backend/mls/suite"
	"weald/backend/mls/tree"
	tm "weald/backend/mls/treemath"
)

// hashOnly is the part of a Suite the tree operations use (the tree hash).
type hashOnly struct {
	tree.Suite
	s *suite.Suite
}

func (h hashOnly) Hash(b []byte) []byte { return h.s.Hash(b) }

type treeOperationsCase struct {
	CipherSuite    uint16           `json:"cipher_suite"`
	TreeBefore     mlstest.HexBytes `json:"tree_before"`
	Proposal       mlstest.HexBytes `json:"proposal"`
	ProposalSender uint32           `json:"proposal_sender"`
	TreeHashBefore mlstest.HexBytes `json:"tree_hash_before"`
	TreeAfter      mlstest.HexBytes `json:"tree_after"`
	TreeHashAfter  mlstest.HexBytes `json:"tree_hash_after"`
}

// TestTreeOperationsVectors applies each Add, Update or Remove to the tree
// and compares the tree and its hash before and after.
func TestTreeOperationsVectors(t *testing.T) {
	var cases []treeOperationsCase
	mlstest.Load(t, "tree-operations.json", &cases)
	var n mlstest.Counter
	for i, c := range cases {
		if !n.Suite(c.CipherSuite) {
			continue
		}
		t.Run(mlstest.SuiteCase(i, c.CipherSuite), func(t *testing.T) {
			cs, err := suite.ByID(suite.ID(c.CipherSuite))
			if err != nil {
				t.Fatal(err)
			}
			s := hashOnly{s: cs}
			tr, err := tree.DecodeRatchetTree(s, c.TreeBefore)
			if err != nil {
				t.Fatalf("case %d: %v", i, err)
			}
			if !bytes.Equal(tr.TreeHash(), c.TreeHashBefore) {
				t.Fatalf("case %d: tree hash before", i)
			}
			p, err := proposal.Decode(c.Proposal)
			if err != nil {
				t.Fatalf("case %d: %v", i, err)
			}
			switch p.Type {
			case proposal.TypeAdd:
				leaf := p.Add.KeyPackage.LeafNode
				tr.AddLeaf(&leaf)
			case proposal.TypeUpdate:
				leaf := p.Update.LeafNode
				err = tr.UpdateLeaf(tm.LeafIndex(c.ProposalSender), &leaf)
			case proposal.TypeRemove:
				err = tr.RemoveLeaf(tm.LeafIndex(p.Remove.Removed))
			default:
				t.Fatalf("case %d: unexpected %v", i, p.Type)
			}
			if err != nil {
				t.Fatalf("case %d: %v: %v", i, p.Type, err)
			}
			if !bytes.Equal(tr.RatchetTreeBytes(), c.TreeAfter) {
				t.Fatalf("case %d: %v: tree after differs", i, p.Type)
			}
			if !bytes.Equal(tr.TreeHash(), c.TreeHashAfter) {
				t.Fatalf("case %d: %v: tree hash after", i, p.Type)
			}
			// The cached hash equals a fresh computation over the decoded tree.
			fresh, err := tree.DecodeRatchetTree(s, c.TreeAfter)
			if err != nil || !bytes.Equal(fresh.TreeHash(), c.TreeHashAfter) {
				t.Fatalf("case %d: fresh tree hash: %v", i, err)
			}
		})
	}
	n.Report(t, "tree-operations.json")
}
