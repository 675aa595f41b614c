package identity

import (
	"crypto/ecdh"
	"crypto/hkdf"
	"crypto/hpke"
	"crypto/sha256"
	"crypto/subtle"
	_ "embed"
	"fmt"
	"io"
	"strings"

	"weald/backend/errcode"
)

// The recovery phrase (gaps.md "Identity and the roster"): 24 words from a
// 2048-word list encode 256 bits of entropy and an 8-bit checksum, the first
// byte of SHA-256(entropy). The word list is the BIP-39 English list, used
// as data; the encoding of entropy into words is the same as BIP-39's for 24
// words, but the keys are derived with HKDF (see DeriveRecoveryKeys), not
// with BIP-39's PBKDF2 seed.

// PhraseWords is the number of words in a recovery phrase.
const PhraseWords = 24

//go:embed wordlist_english.txt
var wordlistText string

var (
	wordlist  []string
	wordIndex map[string]int
)

func init() {
	wordlist = strings.Fields(wordlistText)
	wordIndex = make(map[string]int, len(wordlist))
	for i, w := range wordlist {
		wordIndex[w] = i
	}
	if len(wordlist) != 2048 || len(wordIndex) != 2048 {
		panic("identity: embedded word list is not 2048 unique words")
	}
}

// Wordlist returns a copy of the 2048-word list.
func Wordlist() []string { return append([]string(nil), wordlist...) }

// PhraseError is a recovery phrase that does not parse. Code is one of
// identity/phrase_length, identity/phrase_unknown_word, identity/phrase_checksum.
type PhraseError struct {
	Code     string
	Position int    // 1-based word position for phrase_unknown_word
	Word     string // the offending word
	Count    int    // words found, for phrase_length
	Suggest  string // a list word sharing the first four letters, if any
}

func (e *PhraseError) Error() string { return e.Code + ": " + e.ErrorSentence() }

// ErrorCode returns the code (errcode.Coded).
func (e *PhraseError) ErrorCode() errcode.Code { return errcode.Code(e.Code) }

// ErrorSentence returns the sentence without the code.
func (e *PhraseError) ErrorSentence() string {
	switch e.Code {
	case "identity/phrase_length":
		return fmt.Sprintf("a recovery phrase has %d words, this one has %d", PhraseWords, e.Count)
	case "identity/phrase_unknown_word":
		s := fmt.Sprintf("word %d, %q, is not in the word list", e.Position, e.Word)
		if e.Suggest != "" {
			s += fmt.Sprintf(" (did you mean %q?)", e.Suggest)
		}
		return s
	}
	return "the checksum does not match; one of the words is wrong or two are swapped"
}

// RecoveryPhrase is the secret a user writes down. Not comparable with ==;
// never printed by fmt (use Words to show it to its owner once).
type RecoveryPhrase struct {
	_       [0]func()
	entropy *[32]byte
}

// NewRecoveryPhrase draws 32 bytes of entropy from rand.
func NewRecoveryPhrase(rand io.Reader) (RecoveryPhrase, error) {
	var e [32]byte
	if _, err := io.ReadFull(rand, e[:]); err != nil {
		return RecoveryPhrase{}, fmt.Errorf("new recovery phrase: %w", err)
	}
	return RecoveryPhrase{entropy: &e}, nil
}

// ParseRecoveryPhrase accepts 24 words separated by any white space, in any
// letter case. Errors are *PhraseError naming the bad word or the checksum.
func ParseRecoveryPhrase(s string) (RecoveryPhrase, error) {
	words := strings.Fields(strings.ToLower(s))
	if len(words) != PhraseWords {
		return RecoveryPhrase{}, &PhraseError{Code: "identity/phrase_length", Count: len(words)}
	}
	// 24 × 11 = 264 bits: 256 of entropy, then 8 of checksum.
	var bits [33]byte
	for i, w := range words {
		idx, ok := wordIndex[w]
		if !ok {
			return RecoveryPhrase{}, &PhraseError{Code: "identity/phrase_unknown_word", Position: i + 1,
				Word: w, Suggest: suggestWord(w)}
		}
		for b := 0; b < 11; b++ {
			if idx&(1<<(10-b)) != 0 {
				pos := i*11 + b
				bits[pos/8] |= 0x80 >> (pos % 8)
			}
		}
	}
	var e [32]byte
	copy(e[:], bits[:32])
	sum := sha256.Sum256(e[:])
	if subtle.ConstantTimeByteEq(sum[0], bits[32]) != 1 {
		return RecoveryPhrase{}, &PhraseError{Code: "identity/phrase_checksum"}
	}
	return RecoveryPhrase{entropy: &e}, nil
}

// IsPhraseWord reports whether w (any letter case) is a word of the list.
func IsPhraseWord(w string) bool {
	_, ok := wordIndex[strings.ToLower(w)]
	return ok
}

// SuggestWord returns the list word w was most likely meant to be: the one
// sharing w's first four letters (the list's words differ within them), else
// a three-letter word w starts with ("youzz" was "you"), or "" when none does.
func SuggestWord(w string) string { return suggestWord(strings.ToLower(w)) }

func suggestWord(w string) string {
	if len(w) < 4 {
		return ""
	}
	for _, c := range wordlist {
		if len(c) >= 4 && c[:4] == w[:4] {
			return c
		}
	}
	for _, c := range wordlist {
		if len(c) == 3 && strings.HasPrefix(w, c) {
			return c
		}
	}
	return ""
}

// IsZero reports whether the phrase is unset.
func (p RecoveryPhrase) IsZero() bool { return p.entropy == nil }

// Words returns the 24 words, to show to the user.
func (p RecoveryPhrase) Words() []string {
	if p.entropy == nil {
		return nil
	}
	var bits [33]byte
	copy(bits[:], p.entropy[:])
	sum := sha256.Sum256(p.entropy[:])
	bits[32] = sum[0]
	out := make([]string, PhraseWords)
	for i := range out {
		idx := 0
		for b := 0; b < 11; b++ {
			pos := i*11 + b
			idx <<= 1
			if bits[pos/8]&(0x80>>(pos%8)) != 0 {
				idx |= 1
			}
		}
		out[i] = wordlist[idx]
	}
	return out
}

// Equal compares two phrases in constant time.
func (p RecoveryPhrase) Equal(o RecoveryPhrase) bool {
	if p.entropy == nil || o.entropy == nil {
		return p.entropy == nil && o.entropy == nil
	}
	return subtle.ConstantTimeCompare(p.entropy[:], o.entropy[:]) == 1
}

// String never prints the words.
func (p RecoveryPhrase) String() string { return "recovery-phrase:(secret)" }

// GoString is String.
func (p RecoveryPhrase) GoString() string { return p.String() }

// Format makes every fmt verb print String.
func (p RecoveryPhrase) Format(f fmt.State, _ rune) { io.WriteString(f, p.String()) }

// HKDF labels of the recovery derivation (docs/protocol/identity.md).
const (
	recoverySalt     = "weald 1 recovery"
	recoverySigInfo  = "weald 1 recovery signature"
	recoveryHPKEInfo = "weald 1 recovery hpke"
)

// RecoveryKeys are the recovery principal's keys, derived from the phrase.
type RecoveryKeys struct {
	Signature RecoveryPrivate
	HPKE      RecoveryHPKEPrivate
}

// RecoveryHPKEPrivate is the recovery principal's DHKEM(X25519) key, which
// recovery wraps are sealed to. Never printed.
type RecoveryHPKEPrivate struct {
	_ [0]func()
	k hpke.PrivateKey
}

// Key returns the HPKE private key for crypto/hpke.
func (k RecoveryHPKEPrivate) Key() hpke.PrivateKey { return k.k }

// PublicBytes returns the serialized HPKE public key (32 bytes).
func (k RecoveryHPKEPrivate) PublicBytes() []byte {
	if k.k == nil {
		return nil
	}
	return k.k.PublicKey().Bytes()
}

// String never prints the secret.
func (k RecoveryHPKEPrivate) String() string { return "rechpke:(secret)" }

// Format makes every fmt verb print String.
func (k RecoveryHPKEPrivate) Format(f fmt.State, _ rune) { io.WriteString(f, k.String()) }

// DeriveRecoveryKeys derives the recovery principal's keys:
//
//	prk  = HKDF-Extract(SHA-256, salt = "weald 1 recovery", ikm = entropy)
//	sig  = Ed25519 seed HKDF-Expand(prk, "weald 1 recovery signature", 32)
//	hpke = DHKEM(X25519).DeriveKeyPair(HKDF-Expand(prk, "weald 1 recovery hpke", 32))
func DeriveRecoveryKeys(p RecoveryPhrase) (RecoveryKeys, error) {
	if p.entropy == nil {
		return RecoveryKeys{}, fmt.Errorf("derive recovery keys: %w", ErrZeroKey)
	}
	prk, err := hkdf.Extract(sha256.New, p.entropy[:], []byte(recoverySalt))
	if err != nil {
		return RecoveryKeys{}, err
	}
	seed, err := hkdf.Expand(sha256.New, prk, recoverySigInfo, 32)
	if err != nil {
		return RecoveryKeys{}, err
	}
	sig, err := PrivateFromSeed[Recovery](seed)
	if err != nil {
		return RecoveryKeys{}, err
	}
	ikm, err := hkdf.Expand(sha256.New, prk, recoveryHPKEInfo, 32)
	if err != nil {
		return RecoveryKeys{}, err
	}
	hk, err := hpke.DHKEM(ecdh.X25519()).DeriveKeyPair(ikm)
	if err != nil {
		return RecoveryKeys{}, err
	}
	return RecoveryKeys{Signature: sig, HPKE: RecoveryHPKEPrivate{k: hk}}, nil
}
