package keyschedule

import (
	"io"

	"weald/backend/errcode"
	"weald/backend/mls/suite"
)

// ErrBadSecret is returned when an input secret has the wrong length.
var ErrBadSecret = errcode.New("mls/keyschedule/bad_secret", "a key schedule input has the wrong length")

// EpochSecrets holds the secrets of one epoch (RFC 9420 §8, Table 4) and
// the values derived from them.
type EpochSecrets struct {
	JoinerSecret       []byte
	WelcomeSecret      []byte
	EpochSecret        []byte
	SenderDataSecret   []byte
	EncryptionSecret   []byte
	ExporterSecret     []byte
	ExternalSecret     []byte
	ConfirmationKey    []byte
	MembershipKey      []byte
	ResumptionPSK      []byte
	EpochAuthenticator []byte
	// InitSecret is init_secret of this epoch, the input of the next.
	InitSecret []byte
}

func orZero(s *suite.Suite, b []byte) ([]byte, error) {
	if b == nil {
		return make([]byte, s.Nh()), nil
	}
	if len(b) != s.Nh() {
		return nil, ErrBadSecret
	}
	return b, nil
}

// JoinerSecret computes
//
//	joiner_secret = ExpandWithLabel(KDF.Extract(init_secret, commit_secret), "joiner", GroupContext_[n], KDF.Nh)
//
// where groupContext is the encoded GroupContext of the new epoch. A nil
// commitSecret stands for the all-zero vector (commits without a path).
func JoinerSecret(s *suite.Suite, initSecret, commitSecret, groupContext []byte) ([]byte, error) {
	cs, err := orZero(s, commitSecret)
	if err != nil {
		return nil, err
	}
	if len(initSecret) != s.Nh() {
		return nil, ErrBadSecret
	}
	return s.ExpandWithLabel(s.Extract(initSecret, cs), "joiner", groupContext, s.Nh())
}

// memberSecret is KDF.Extract(joiner_secret, psk_secret) (the unnamed
// intermediate of §8 from which welcome_secret and epoch_secret come).
func memberSecret(s *suite.Suite, joinerSecret, pskSecret []byte) ([]byte, error) {
	ps, err := orZero(s, pskSecret)
	if err != nil {
		return nil, err
	}
	if len(joinerSecret) != s.Nh() {
		return nil, ErrBadSecret
	}
	return s.Extract(joinerSecret, ps), nil
}

// WelcomeSecret is DeriveSecret(KDF.Extract(joiner_secret, psk_secret), "welcome").
// A nil pskSecret stands for the zero vector (no PSKs).
func WelcomeSecret(s *suite.Suite, joinerSecret, pskSecret []byte) ([]byte, error) {
	m, err := memberSecret(s, joinerSecret, pskSecret)
	if err != nil {
		return nil, err
	}
	return s.DeriveSecret(m, "welcome"), nil
}

// WelcomeKeyNonce derives the key and nonce that encrypt a Welcome's
// GroupInfo (RFC 9420 §12.4.3.1):
//
//	welcome_nonce = ExpandWithLabel(welcome_secret, "nonce", "", AEAD.Nn)
//	welcome_key   = ExpandWithLabel(welcome_secret, "key", "", AEAD.Nk)
func WelcomeKeyNonce(s *suite.Suite, welcomeSecret []byte) (key, nonce []byte) {
	key, _ = s.ExpandWithLabel(welcomeSecret, "key", nil, s.Nk())
	nonce, _ = s.ExpandWithLabel(welcomeSecret, "nonce", nil, s.Nn())
	return key, nonce
}

// Derive runs the key schedule of RFC 9420 §8 for a member that knows the
// previous epoch's init_secret: joiner_secret, then [FromJoiner].
func Derive(s *suite.Suite, initSecret, commitSecret, pskSecret, groupContext []byte) (*EpochSecrets, error) {
	j, err := JoinerSecret(s, initSecret, commitSecret, groupContext)
	if err != nil {
		return nil, err
	}
	return FromJoiner(s, j, pskSecret, groupContext)
}

// FromJoiner derives the epoch secrets from joiner_secret (as a new member
// does from a Welcome):
//
//	epoch_secret = ExpandWithLabel(KDF.Extract(joiner_secret, psk_secret), "epoch", GroupContext_[n], KDF.Nh)
//
// and every secret of Table 4 as DeriveSecret(epoch_secret, label), the
// epoch authenticator (§8.7) and the next init_secret.
func FromJoiner(s *suite.Suite, joinerSecret, pskSecret, groupContext []byte) (*EpochSecrets, error) {
	m, err := memberSecret(s, joinerSecret, pskSecret)
	if err != nil {
		return nil, err
	}
	epoch, err := s.ExpandWithLabel(m, "epoch", groupContext, s.Nh())
	if err != nil {
		return nil, err
	}
	e := &EpochSecrets{
		JoinerSecret:       append([]byte(nil), joinerSecret...),
		WelcomeSecret:      s.DeriveSecret(m, "welcome"),
		EpochSecret:        epoch,
		SenderDataSecret:   s.DeriveSecret(epoch, "sender data"),
		EncryptionSecret:   s.DeriveSecret(epoch, "encryption"),
		ExporterSecret:     s.DeriveSecret(epoch, "exporter"),
		ExternalSecret:     s.DeriveSecret(epoch, "external"),
		ConfirmationKey:    s.DeriveSecret(epoch, "confirm"),
		MembershipKey:      s.DeriveSecret(epoch, "membership"),
		ResumptionPSK:      s.DeriveSecret(epoch, "resumption"),
		EpochAuthenticator: s.DeriveSecret(epoch, "authentication"),
		InitSecret:         s.DeriveSecret(epoch, "init"),
	}
	return e, nil
}

// Exporter is MLS-Exporter (RFC 9420 §8.5):
//
//	MLS-Exporter(Label, Context, Length) =
//	    ExpandWithLabel(DeriveSecret(exporter_secret, Label), "exported", Hash(Context), Length)
func Exporter(s *suite.Suite, exporterSecret []byte, label string, context []byte, length int) ([]byte, error) {
	return s.ExpandWithLabel(s.DeriveSecret(exporterSecret, label), "exported", s.Hash(context), length)
}

// ExternalKeyPair derives the external key pair of an epoch (RFC 9420 §8.3):
// external_priv, external_pub = KEM.DeriveKeyPair(external_secret).
func ExternalKeyPair(s *suite.Suite, externalSecret []byte) (suite.KeyPair, error) {
	return s.DeriveKeyPair(externalSecret)
}

// externalInitLabel is the exporter label of RFC 9420 §8.3.
const externalInitLabel = "MLS 1.0 external init secret"

// ExternalInitSend is the joiner's side of RFC 9420 §8.3:
//
//	kem_output, context = SetupBaseS(external_pub, "")
//	init_secret = context.export("MLS 1.0 external init secret", KDF.Nh)
//
// with the ephemeral key drawn from rand. kem_output goes into the
// ExternalInit proposal.
func ExternalInitSend(s *suite.Suite, rand io.Reader, externalPub []byte) (kemOutput, initSecret []byte, err error) {
	return s.ExportSend(rand, externalPub, nil, []byte(externalInitLabel), s.Nh())
}

// ExternalInitReceive is the members' side of RFC 9420 §8.3: it recovers
// init_secret from kem_output with external_priv, itself derived from the
// epoch's external_secret.
func ExternalInitReceive(s *suite.Suite, externalSecret, kemOutput []byte) ([]byte, error) {
	kp, err := ExternalKeyPair(s, externalSecret)
	if err != nil {
		return nil, err
	}
	return s.ExportReceive(kp.Private, kemOutput, nil, []byte(externalInitLabel), s.Nh())
}
