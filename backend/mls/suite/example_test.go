package suite_test

import (
	"crypto/rand"
	"fmt"

	"weald/backend/mls/suite"
)

// Example signs and encrypts with cipher suite 1.
func Example() {
	s, err := suite.ByID(suite.MLS128DHKEMX25519AES128GCMSHA256Ed25519)
	if err != nil {
		panic(err)
	}
	sk, _ := s.GenerateSigningKey(rand.Reader)
	sig, _ := s.SignWithLabel(rand.Reader, sk, "LeafNodeTBS", []byte("content"))
	fmt.Println("signature ok:", s.VerifyWithLabel(sk.Public(), "LeafNodeTBS", []byte("content"), sig) == nil)

	kp, _ := s.GenerateKeyPair(rand.Reader)
	kem, ct, _ := s.EncryptWithLabel(rand.Reader, kp.Public, "UpdatePathNode", []byte("ctx"), []byte("path secret"))
	pt, _ := s.DecryptWithLabel(kp.Private, "UpdatePathNode", []byte("ctx"), kem, ct)
	fmt.Println(string(pt))

	_, err = suite.ByID(suite.MLS256DHKEMX448AES256GCMSHA512Ed448)
	fmt.Println(err)
	// Output:
	// signature ok: true
	// path secret
	// mls/suite/unsupported: cipher suite 4 is not supported
}
