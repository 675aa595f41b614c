package identity

import (
	"bytes"
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
)

func TestWordlistIntegrity(t *testing.T) {
	w := Wordlist()
	if len(w) != 2048 {
		t.Fatalf("%d words", len(w))
	}
	seen := map[string]bool{}
	four := map[string]bool{}
	for i, x := range w {
		if seen[x] {
			t.Fatalf("duplicate %q", x)
		}
		seen[x] = true
		if i > 0 && w[i-1] >= x {
			t.Fatalf("not sorted at %d", i)
		}
		p := x[:min(4, len(x))]
		if four[p] {
			t.Fatalf("four-letter prefix %q not unique", p)
		}
		four[p] = true
	}
	// The BIP-39 English list's published SHA-256 (of the file with "\n" after each word).
	sum := sha256.Sum256([]byte(strings.Join(w, "\n") + "\n"))
	if hex.EncodeToString(sum[:]) != "2f5eed53a4727b4bf8880d8f3f199efc90e58503646d9ff8eff3a2ed3b24dbda" {
		t.Fatalf("word list hash %x", sum)
	}
}

// BIP-39 test vectors for 256-bit entropy (the mnemonic part only).
func TestPhraseVectors(t *testing.T) {
	vectors := []struct{ entropy, words string }{
		{strings.Repeat("00", 32), strings.Repeat("abandon ", 23) + "art"},
		{strings.Repeat("7f", 32), "legal winner thank year wave sausage worth useful legal winner thank year wave sausage worth useful legal winner thank year wave sausage worth title"},
		{strings.Repeat("80", 32), "letter advice cage absurd amount doctor acoustic avoid letter advice cage absurd amount doctor acoustic avoid letter advice cage absurd amount doctor acoustic bless"},
		{strings.Repeat("ff", 32), strings.Repeat("zoo ", 23) + "vote"},
	}
	for _, v := range vectors {
		e, _ := hex.DecodeString(v.entropy)
		p, err := NewRecoveryPhrase(bytes.NewReader(e))
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(p.Words(), " "); got != v.words {
			t.Fatalf("entropy %s: got %q", v.entropy[:4], got)
		}
		q, err := ParseRecoveryPhrase("  " + strings.ToUpper(v.words) + "\n")
		if err != nil {
			t.Fatal(err)
		}
		if !q.Equal(p) {
			t.Fatal("parse does not invert Words")
		}
	}
}

func TestPhraseErrors(t *testing.T) {
	p, _ := NewRecoveryPhrase(testRand(10))
	words := p.Words()

	bad := append([]string(nil), words...)
	bad[6] = "abandonx"
	_, err := ParseRecoveryPhrase(strings.Join(bad, " "))
	var pe *PhraseError
	if !errors.As(err, &pe) || pe.Code != "identity/phrase_unknown_word" || pe.Position != 7 || pe.Word != "abandonx" {
		t.Fatalf("unknown word: %v", err)
	}
	if pe.Suggest != "abandon" || !strings.Contains(err.Error(), `word 7, "abandonx"`) {
		t.Fatalf("message %q", err)
	}

	// One word at a time, as a form checks each box.
	if !IsPhraseWord("Abandon") || IsPhraseWord("abandonx") || SuggestWord("ABANDONX") != "abandon" || SuggestWord("zzzz") != "" ||
		SuggestWord("youzz") != "you" || SuggestWord("youn") != "young" || SuggestWord("yuo") != "" {
		t.Fatal("IsPhraseWord or SuggestWord")
	}

	_, err = ParseRecoveryPhrase(strings.Join(words[:23], " "))
	if !errors.As(err, &pe) || pe.Code != "identity/phrase_length" || pe.Count != 23 {
		t.Fatalf("length: %v", err)
	}

	// Change one word to another list word: the checksum catches it
	// (1 in 256 of replacements collide; walk until one does not).
	caught := false
	for i := 0; i < 16 && !caught; i++ {
		sw := append([]string(nil), words...)
		sw[3] = Wordlist()[(indexOf(words[3])+1+i)%2048]
		_, err = ParseRecoveryPhrase(strings.Join(sw, " "))
		caught = errors.As(err, &pe) && pe.Code == "identity/phrase_checksum"
	}
	if !caught {
		t.Fatalf("checksum never caught a replaced word: %v", err)
	}
}

func indexOf(w string) int { return wordIndex[w] }

func TestRecoveryDerivation(t *testing.T) {
	p, _ := NewRecoveryPhrase(testRand(11))
	k1, err := DeriveRecoveryKeys(p)
	if err != nil {
		t.Fatal(err)
	}
	q, _ := ParseRecoveryPhrase(strings.Join(p.Words(), " "))
	k2, _ := DeriveRecoveryKeys(q)
	if !k1.Signature.Equal(k2.Signature) || !bytes.Equal(k1.HPKE.PublicBytes(), k2.HPKE.PublicBytes()) {
		t.Fatal("derivation is not deterministic")
	}
	// Independent recomputation of the documented signature-key derivation.
	seed, _ := hkdf.Key(sha256.New, p.entropy[:], []byte("weald 1 recovery"), "weald 1 recovery signature", 32)
	if !bytes.Equal(seed, k1.Signature.Seed()) {
		t.Fatal("signature seed differs from the documented HKDF derivation")
	}
	if len(k1.HPKE.PublicBytes()) != 32 || bytes.Equal(k1.HPKE.PublicBytes(), k1.Signature.Public().Bytes()) {
		t.Fatal("HPKE key is not a separate 32-byte X25519 key")
	}
	other, _ := NewRecoveryPhrase(testRand(12))
	k3, _ := DeriveRecoveryKeys(other)
	if k3.Signature.Equal(k1.Signature) {
		t.Fatal("different phrases derived the same key")
	}
	if _, err := DeriveRecoveryKeys(RecoveryPhrase{}); err == nil {
		t.Fatal("zero phrase derived keys")
	}
}

func FuzzParseRecoveryPhrase(f *testing.F) {
	p, _ := NewRecoveryPhrase(testRand(13))
	f.Add(strings.Join(p.Words(), " "))
	f.Add("zoo zoo")
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		q, err := ParseRecoveryPhrase(s)
		if err != nil {
			var pe *PhraseError
			if !errors.As(err, &pe) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		r, err := ParseRecoveryPhrase(strings.Join(q.Words(), " "))
		if err != nil || !r.Equal(q) {
			t.Fatalf("words do not round-trip: %v", err)
		}
	})
}
