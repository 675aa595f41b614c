package keyschedule

import (
	"bytes"
	"encoding/hex"
	"testing"

	"weald/backend/internal/codec"
	"weald/backend/mls/internal/mlstest"
	"weald/backend/mls/suite"
)

type hexb = mlstest.HexBytes

func TestKeyScheduleVectors(t *testing.T) {
	var cases []struct {
		CipherSuite       uint16 `json:"cipher_suite"`
		GroupID           hexb   `json:"group_id"`
		InitialInitSecret hexb   `json:"initial_init_secret"`
		Epochs            []struct {
			CommitSecret            hexb `json:"commit_secret"`
			ConfirmationKey         hexb `json:"confirmation_key"`
			ConfirmedTranscriptHash hexb `json:"confirmed_transcript_hash"`
			EncryptionSecret        hexb `json:"encryption_secret"`
			EpochAuthenticator      hexb `json:"epoch_authenticator"`
			Exporter                struct {
				Context hexb `json:"context"`
				Label   hexb `json:"label"`
				Length  int  `json:"length"`
				Secret  hexb `json:"secret"`
			} `json:"exporter"`
			ExporterSecret   hexb `json:"exporter_secret"`
			ExternalPub      hexb `json:"external_pub"`
			ExternalSecret   hexb `json:"external_secret"`
			GroupContext     hexb `json:"group_context"`
			InitSecret       hexb `json:"init_secret"`
			JoinerSecret     hexb `json:"joiner_secret"`
			MembershipKey    hexb `json:"membership_key"`
			PSKSecret        hexb `json:"psk_secret"`
			ResumptionPSK    hexb `json:"resumption_psk"`
			SenderDataSecret hexb `json:"sender_data_secret"`
			TreeHash         hexb `json:"tree_hash"`
			WelcomeSecret    hexb `json:"welcome_secret"`
		} `json:"epochs"`
	}
	mlstest.Load(t, "key-schedule.json", &cases)
	var c mlstest.Counter
	epochs := 0
	for i, tc := range cases {
		if !c.Suite(tc.CipherSuite) {
			continue
		}
		t.Run(mlstest.SuiteCase(i, tc.CipherSuite), func(t *testing.T) {
			s, err := suite.ByID(suite.ID(tc.CipherSuite))
			if err != nil {
				t.Fatal(err)
			}
			init := []byte(tc.InitialInitSecret)
			for i, ep := range tc.Epochs {
				gc := GroupContext{Version: 1, CipherSuite: tc.CipherSuite, GroupID: tc.GroupID, Epoch: uint64(i),
					TreeHash: ep.TreeHash, ConfirmedTranscriptHash: ep.ConfirmedTranscriptHash}
				gcb := gc.Bytes()
				if !bytes.Equal(gcb, ep.GroupContext) {
					t.Fatalf("suite %d epoch %d: group context %x want %x", tc.CipherSuite, i, gcb, ep.GroupContext)
				}
				r := codec.NewReader(gcb)
				back := DecodeGroupContext(r)
				if r.Done() != nil || !bytes.Equal(back.Bytes(), gcb) {
					t.Fatalf("group context round trip: %v", r.Err())
				}
				e, err := Derive(s, init, ep.CommitSecret, ep.PSKSecret, gcb)
				if err != nil {
					t.Fatal(err)
				}
				for _, chk := range []struct {
					name      string
					got, want []byte
				}{
					{"joiner_secret", e.JoinerSecret, ep.JoinerSecret},
					{"welcome_secret", e.WelcomeSecret, ep.WelcomeSecret},
					{"init_secret", e.InitSecret, ep.InitSecret},
					{"sender_data_secret", e.SenderDataSecret, ep.SenderDataSecret},
					{"encryption_secret", e.EncryptionSecret, ep.EncryptionSecret},
					{"exporter_secret", e.ExporterSecret, ep.ExporterSecret},
					{"epoch_authenticator", e.EpochAuthenticator, ep.EpochAuthenticator},
					{"external_secret", e.ExternalSecret, ep.ExternalSecret},
					{"confirmation_key", e.ConfirmationKey, ep.ConfirmationKey},
					{"membership_key", e.MembershipKey, ep.MembershipKey},
					{"resumption_psk", e.ResumptionPSK, ep.ResumptionPSK},
				} {
					if !bytes.Equal(chk.got, chk.want) {
						t.Errorf("suite %d epoch %d: %s %x want %x", tc.CipherSuite, i, chk.name, chk.got, chk.want)
					}
				}
				ws, err := WelcomeSecret(s, ep.JoinerSecret, ep.PSKSecret)
				if err != nil || !bytes.Equal(ws, ep.WelcomeSecret) {
					t.Errorf("WelcomeSecret: %v", err)
				}
				kp, err := ExternalKeyPair(s, e.ExternalSecret)
				if err != nil || !bytes.Equal(kp.Public, ep.ExternalPub) {
					t.Errorf("suite %d epoch %d: external_pub %x want %x (%v)", tc.CipherSuite, i, kp.Public, ep.ExternalPub, err)
				}
				// The exporter label of these vectors is the text of its hex
				// encoding (that is what the generator passed as the label
				// string), while the context is the decoded bytes.
				x := ep.Exporter
				out, err := Exporter(s, e.ExporterSecret, hex.EncodeToString(x.Label), x.Context, x.Length)
				if err != nil || !bytes.Equal(out, x.Secret) {
					t.Errorf("suite %d epoch %d: exporter %x want %x", tc.CipherSuite, i, out, x.Secret)
				}
				init = e.InitSecret
				epochs++
			}
		})
	}
	t.Logf("key-schedule.json: %d epochs checked", epochs)
	c.Report(t, "key-schedule.json")
}

func TestPSKSecretVectors(t *testing.T) {
	var cases []struct {
		CipherSuite uint16 `json:"cipher_suite"`
		PSKs        []struct {
			PSKID    hexb `json:"psk_id"`
			PSK      hexb `json:"psk"`
			PSKNonce hexb `json:"psk_nonce"`
		} `json:"psks"`
		PSKSecret hexb `json:"psk_secret"`
	}
	mlstest.Load(t, "psk_secret.json", &cases)
	var c mlstest.Counter
	for i, tc := range cases {
		if !c.Suite(tc.CipherSuite) {
			continue
		}
		t.Run(mlstest.SuiteCase(i, tc.CipherSuite), func(t *testing.T) {
			s, err := suite.ByID(suite.ID(tc.CipherSuite))
			if err != nil {
				t.Fatal(err)
			}
			var psks []PSK
			for _, p := range tc.PSKs {
				id := PreSharedKeyID{Type: PSKExternal, PSKID: p.PSKID, Nonce: p.PSKNonce}
				if err := id.Validate(s); err != nil {
					t.Fatal(err)
				}
				// Round-trip the identifier encoding.
				var w codec.Writer
				id.Encode(&w)
				r := codec.NewReader(w.Bytes())
				back := DecodePreSharedKeyID(r)
				if r.Done() != nil || !bytes.Equal(back.PSKID, id.PSKID) || !bytes.Equal(back.Nonce, id.Nonce) {
					t.Fatal("PreSharedKeyID round trip")
				}
				psks = append(psks, PSK{ID: id, Secret: p.PSK})
			}
			got, err := PSKSecret(s, psks)
			if err != nil || !bytes.Equal(got, tc.PSKSecret) {
				t.Errorf("suite %d, %d psks: psk_secret %x want %x (%v)", tc.CipherSuite, len(psks), got, tc.PSKSecret, err)
			}
		})
	}
	c.Report(t, "psk_secret.json")
}
