package mls

import (
	"bytes"
	"testing"

	"weald/backend/mls/internal/mlstest"
)

type hexb = mlstest.HexBytes

// bundleFromVector rebuilds a key package bundle from a vector's key
// package MLSMessage and private keys.
func bundleFromVector(t *testing.T, kpMsg, initPriv, encPriv, sigPriv []byte) *KeyPackageBundle {
	t.Helper()
	kp, err := decodeKeyPackage(kpMsg)
	if err != nil {
		t.Fatalf("key package: %v", err)
	}
	return &KeyPackageBundle{KeyPackage: kp, InitPriv: initPriv, EncryptionKey: encPriv, SignatureKey: sigPriv}
}

// TestWelcomeVectors: decrypt the GroupSecrets and GroupInfo, verify the
// GroupInfo signature with signer_pub and the confirmation tag.
func TestWelcomeVectors(t *testing.T) {
	var cases []struct {
		CipherSuite uint16 `json:"cipher_suite"`
		InitPriv    hexb   `json:"init_priv"`
		KeyPackage  hexb   `json:"key_package"`
		SignerPub   hexb   `json:"signer_pub"`
		Welcome     hexb   `json:"welcome"`
	}
	mlstest.Load(t, "welcome.json", &cases)
	var n mlstest.Counter
	for i, c := range cases {
		if !n.Suite(c.CipherSuite) {
			continue
		}
		t.Run(mlstest.SuiteCase(i, c.CipherSuite), func(t *testing.T) {
			cs, err := newCipher(c.CipherSuite, nil)
			if err != nil {
				t.Fatal(err)
			}
			kp := bundleFromVector(t, c.KeyPackage, c.InitPriv, nil, nil)
			body, err := expectMLSMessage(c.Welcome, wireWelcome)
			if err != nil {
				t.Fatal(err)
			}
			wl, err := DecodeWelcome(body)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(wl.Bytes(), body) {
				t.Fatalf("case %d: welcome does not re-encode", i)
			}
			ref := kp.KeyPackage.Ref(cs)
			var egs *EncryptedGroupSecrets
			for j := range wl.Secrets {
				if bytes.Equal(wl.Secrets[j].NewMember, ref) {
					egs = &wl.Secrets[j]
				}
			}
			if egs == nil {
				t.Fatalf("case %d: no secrets for our key package", i)
			}
			pt, err := cs.DecryptWithLabel(kp.InitPriv, "Welcome", wl.EncryptedGroupInfo, egs.EncryptedGroupSecrets.KEMOutput, egs.EncryptedGroupSecrets.Ciphertext)
			if err != nil {
				t.Fatalf("case %d: group secrets: %v", i, err)
			}
			gs, err := DecodeGroupSecrets(pt)
			if err != nil {
				t.Fatal(err)
			}
			gi, psk, err := openWelcome(nil, cs, wl, gs)
			if err != nil {
				t.Fatalf("case %d: %v", i, err)
			}
			if !cs.VerifyWithLabel(c.SignerPub, "GroupInfoTBS", gi.tbs(), gi.Signature) {
				t.Fatalf("case %d: group info signature", i)
			}
			if _, err := welcomeEpoch(cs, gs, psk, gi); err != nil {
				t.Fatalf("case %d: %v", i, err)
			}
		})
	}
	n.Report(t, "welcome.json")
}

type passiveCase struct {
	CipherSuite  uint16 `json:"cipher_suite"`
	ExternalPSKs []struct {
		PSKID hexb `json:"psk_id"`
		PSK   hexb `json:"psk"`
	} `json:"external_psks"`
	KeyPackage                hexb  `json:"key_package"`
	SignaturePriv             hexb  `json:"signature_priv"`
	EncryptionPriv            hexb  `json:"encryption_priv"`
	InitPriv                  hexb  `json:"init_priv"`
	Welcome                   hexb  `json:"welcome"`
	RatchetTree               *hexb `json:"ratchet_tree"`
	InitialEpochAuthenticator hexb  `json:"initial_epoch_authenticator"`
	Epochs                    []struct {
		Proposals          []hexb `json:"proposals"`
		Commit             hexb   `json:"commit"`
		EpochAuthenticator hexb   `json:"epoch_authenticator"`
	} `json:"epochs"`
}

// runPassive joins by the Welcome, then processes every epoch's proposals
// and commit, checking the epoch authenticator after each (RFC 9420 §8.7).
func runPassive(t *testing.T, file string) {
	var cases []passiveCase
	mlstest.Load(t, file, &cases)
	var n mlstest.Counter
	epochs := 0
	for i, c := range cases {
		if !n.Suite(c.CipherSuite) {
			continue
		}
		t.Run(mlstest.SuiteCase(i, c.CipherSuite), func(t *testing.T) {
			psks := map[string][]byte{}
			for _, p := range c.ExternalPSKs {
				psks[string(p.PSKID)] = p.PSK
			}
			cfg := &Config{PSKs: func(id []byte) ([]byte, bool) { s, ok := psks[string(id)]; return s, ok }}
			kp := bundleFromVector(t, c.KeyPackage, c.InitPriv, c.EncryptionPriv, c.SignaturePriv)
			var rt []byte
			if c.RatchetTree != nil {
				rt = *c.RatchetTree
			}
			g, _, err := JoinWelcome(cfg, c.Welcome, []*KeyPackageBundle{kp}, rt)
			if err != nil {
				t.Fatalf("%s case %d (suite %d): join: %v", file, i, c.CipherSuite, err)
			}
			if !bytes.Equal(g.EpochAuthenticator(), c.InitialEpochAuthenticator) {
				t.Fatalf("%s case %d: initial epoch authenticator", file, i)
			}
			for e, ep := range c.Epochs {
				for k, p := range ep.Proposals {
					if _, err := g.Process(p); err != nil {
						t.Fatalf("%s case %d epoch %d proposal %d: %v", file, i, e, k, err)
					}
				}
				r, err := g.Process(ep.Commit)
				if err != nil {
					t.Fatalf("%s case %d (suite %d) epoch %d: commit: %v", file, i, c.CipherSuite, e, err)
				}
				if r.Commit == nil {
					t.Fatalf("%s case %d epoch %d: not a commit", file, i, e)
				}
				if err := g.Merge(r.Commit); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(g.EpochAuthenticator(), ep.EpochAuthenticator) {
					t.Fatalf("%s case %d epoch %d: epoch authenticator %x, want %x", file, i, e, g.EpochAuthenticator(), []byte(ep.EpochAuthenticator))
				}
				epochs++
			}
		})
	}
	t.Logf("%s: %d epochs processed", file, epochs)
	n.Report(t, file)
}

func TestPassiveClientWelcomeVectors(t *testing.T) { runPassive(t, "passive-client-welcome.json") }

func TestPassiveClientHandlingCommitVectors(t *testing.T) {
	runPassive(t, "passive-client-handling-commit.json")
}

func TestPassiveClientRandomVectors(t *testing.T) { runPassive(t, "passive-client-random.json") }
