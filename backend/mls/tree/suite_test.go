package tree

import (
	"crypto/rand"
	"io"
	"testing"

	"weald/backend/mls/suite"
)

// testSuite adapts backend/mls/suite to the Suite interface for tests (the
// group package has its own adapter bound to the group's randomness).
type testSuite struct {
	s    *suite.Suite
	rand io.Reader
}

func newTestSuite(tb testing.TB, id uint16) *testSuite {
	tb.Helper()
	s, err := suite.ByID(suite.ID(id))
	if err != nil {
		tb.Fatalf("suite %d: %v", id, err)
	}
	return &testSuite{s: s, rand: rand.Reader}
}

func (c *testSuite) ID() uint16                                { return uint16(c.s.ID()) }
func (c *testSuite) SecretSize() int                           { return c.s.Nh() }
func (c *testSuite) Hash(data []byte) []byte                   { return c.s.Hash(data) }
func (c *testSuite) RefHash(label string, value []byte) []byte { return c.s.RefHash(label, value) }
func (c *testSuite) DeriveSecret(secret []byte, label string) ([]byte, error) {
	return c.s.DeriveSecret(secret, label), nil
}
func (c *testSuite) DeriveKeyPair(ikm []byte) ([]byte, []byte, error) {
	kp, err := c.s.DeriveKeyPair(ikm)
	return kp.Private, kp.Public, err
}
func (c *testSuite) SignWithLabel(priv []byte, label string, content []byte) ([]byte, error) {
	k, err := c.s.ParseSigningKey(priv)
	if err != nil {
		return nil, err
	}
	return c.s.SignWithLabel(c.rand, k, label, content)
}
func (c *testSuite) VerifyWithLabel(pub []byte, label string, content, sig []byte) bool {
	return c.s.VerifyWithLabel(pub, label, content, sig) == nil
}
func (c *testSuite) EncryptWithLabel(pub []byte, label string, context, pt []byte) ([]byte, []byte, error) {
	return c.s.EncryptWithLabel(c.rand, pub, label, context, pt)
}
func (c *testSuite) DecryptWithLabel(priv []byte, label string, context, kem, ct []byte) ([]byte, error) {
	return c.s.DecryptWithLabel(priv, label, context, kem, ct)
}
