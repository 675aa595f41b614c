package groups

import "testing"

func FuzzDecoders(f *testing.F) {
	f.Add([]byte{1, 0, 0, 0, 0, 0, 0, 0, 1})
	f.Add((&ContentCT{Scheme: SchemeEpoch, Epoch: 3}).Encode())
	f.Add((&HistoryPlain{Epoch: 1}).Encode())
	f.Add((&InviteBundle{RootEpoch: 1}).Encode())
	f.Add((&JoinData{Path: 1}).Encode())
	f.Fuzz(func(t *testing.T, b []byte) {
		if x, err := DecodeSealedBundle(b); err == nil && string(x.Encode()) != string(b) {
			t.Fatal("sealed bundle not canonical")
		}
		if x, err := DecodeContentCT(b); err == nil && string(x.Encode()) != string(b) {
			t.Fatal("content not canonical")
		}
		if x, err := DecodeGroupInfoPlain(b); err == nil && string(x.Encode()) != string(b) {
			t.Fatal("group info plain not canonical")
		}
		if x, err := DecodeHistoryPlain(b); err == nil && string(x.Encode()) != string(b) {
			t.Fatal("history plain not canonical")
		}
		if x, err := DecodeInviteBundle(b); err == nil && string(x.Encode()) != string(b) {
			t.Fatal("invite bundle not canonical")
		}
		if x, err := DecodeJoinData(b); err == nil && string(x.Encode()) != string(b) {
			t.Fatal("join data not canonical")
		}
		if x, err := DecodeRecoveryWrap(b); err == nil && string(x.Encode()) != string(b) {
			t.Fatal("recovery wrap not canonical")
		}
		_, _ = decodeBundlePlain(b)
		_, _ = ParseLink(string(b))
	})
}
