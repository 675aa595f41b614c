package app_test

import (
	"context"
	"io"
	"strings"
	"testing"

	"weald/app"
)

// Issue 12, recovery onto a new device in the desktop app, against a real
// relay. Sam loses his only device. On a new app the phrase is checked word
// by word (a typo named with its suggestion, two swapped words caught by
// the checksum); a valid phrase that is nobody's, a broken workspace link
// and a relay address without the workspace id are refused and leave
// nothing. With his words and the workspace link Dana's app shows, Sam's
// new device is on probation; his app resumes the recovery by itself until
// Dana's app lists it (nobody calls ResumeRecovery), and Dana approves it:
// the recovery finishes by itself, its last step revokes the old device,
// and the new one reads #general's history. After a restart it is still
// done.
func TestRecoverInTheApp(t *testing.T) {
	t.Parallel()
	url, svc := realRelay(t)
	dana, sam := workspaces(t), workspaces(t)
	c := danaAcme(t, dana, url, svc)
	ws := c.Workspace.ID
	inv, err := dana.CreateInvite(ws, nil, 24, 1, "member")
	if err != nil {
		t.Fatal(err)
	}
	joined, err := sam.Join(inv.Link, "Sam")
	if err != nil {
		t.Fatal(err)
	}
	phrase := joined.RecoveryPhrase
	if len(phrase) != 24 {
		t.Fatalf("Sam's phrase: %d words", len(phrase))
	}
	eventually(t, "sam ready", func() bool { return only(t, sam).Ready })
	general := channelNamed(t, dana, ws, "general")
	if _, err := dana.Send(ws, general, "before the loss"); err != nil {
		t.Fatal(err)
	}
	link := only(t, dana).Link
	if !strings.HasPrefix(link, "weald://workspace?") || !strings.Contains(link, ws) {
		t.Fatalf("Dana's workspace link %q", link)
	}

	dir := t.TempDir()
	a := app.New(dir, io.Discard, nil)
	a.Startup(context.Background())
	laptop := app.Services(a)[2].(*app.Workspaces)

	// Word by word: a typo is named with its suggestion; a swap is the checksum's.
	// The word changed is one of four letters or more (the list has words of three,
	// which a four-letter prefix would run past).
	w := 6
	for w < len(phrase)-1 && len(phrase[w]) < 4 {
		w++
	}
	typo := append([]string{}, phrase...)
	typo[w] = phrase[w][:4] + "qq"
	chk := laptop.CheckRecoveryPhrase(typo)
	if chk.Complete || chk.Words[w].Known || chk.Words[w].Suggest != phrase[w] || !chk.Words[w-1].Known || chk.Problem != nil {
		t.Fatalf("a typo: %+v", chk)
	}
	swapped := append([]string{}, phrase...)
	swapped[0], swapped[1] = phrase[1], phrase[0]
	if phrase[0] == phrase[1] {
		swapped[0], swapped[2] = phrase[2], phrase[0]
	}
	if chk := laptop.CheckRecoveryPhrase(swapped); chk.Complete || chk.Problem == nil || chk.Problem.Code != "identity/phrase_checksum" {
		t.Fatalf("two words swapped: %+v", chk)
	}
	if chk := laptop.CheckRecoveryPhrase(phrase); !chk.Complete || chk.Problem != nil {
		t.Fatalf("the right words: %+v", chk)
	}
	if _, err := laptop.Recover(link, "", typo); code(err) != "identity/phrase_unknown_word" {
		t.Fatalf("a typo: %v", err)
	}

	// Refusals leave nothing: a valid phrase that is nobody's (the invite
	// link names the workspace), a broken link, an address without the id.
	nobody := strings.Fields(strings.Repeat("abandon ", 23) + "art")
	if _, err := laptop.Recover(inv.Link, "", nobody); code(err) != "recovery/unknown_phrase" {
		t.Fatalf("nobody's phrase: %v", err)
	}
	if _, err := laptop.Recover(link[:len(link)-3], "", phrase); code(err) != "workspace/bad_link" {
		t.Fatalf("a cut link: %v", err)
	}
	if _, err := laptop.Recover(url, "", phrase); code(err) != "recovery/no_workspace" {
		t.Fatalf("an address alone: %v", err)
	}
	if _, err := laptop.Recover(url, strings.Repeat("ab", 32), phrase); code(err) != "recovery/no_such_workspace" {
		t.Fatalf("another workspace id: %v", err)
	}
	if list, err := laptop.List(); err != nil || len(list) != 0 {
		t.Fatalf("after the refusals: %+v, %v", list, err)
	}

	// The right words: on probation until Dana approves.
	got, err := laptop.Recover(link, "", phrase)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != ws || got.Name != "Acme" || got.You != "Sam" || got.Recovery == nil || got.Problem != nil {
		t.Fatalf("recovered: %+v (recovery %+v)", got, got.Recovery)
	}
	if s := got.Recovery.Stage; s != app.RecoveryListing && s != app.RecoveryApproval {
		t.Fatalf("stage %q, want listing or approval", s)
	}
	device := got.Recovery.Device
	eventually(t, "listed by Dana's app, resumed by Sam's", func() bool {
		r := only(t, laptop).Recovery
		return r.Stage == app.RecoveryApproval && r.Listed
	})
	if w, err := laptop.ResumeRecovery(ws); err != nil || w.Recovery.Stage != app.RecoveryApproval {
		t.Fatalf("Check now: %+v, %v", w, err)
	}
	if _, err := dana.ResumeRecovery(ws); code(err) != "recovery/none_here" {
		t.Fatalf("Check now on a device not recovered: %v", err)
	}
	eventually(t, "Dana's approval request", func() bool {
		list, err := dana.SecurityAlerts(ws)
		for _, x := range list {
			if x.Code == "device/recovered" && x.Approve && x.Device == device {
				return true
			}
		}
		if err != nil {
			t.Fatal(err)
		}
		return false
	})
	if err := dana.ApproveDevice(ws, device); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the recovery done by itself", func() bool {
		r := only(t, laptop).Recovery
		return r.Stage == app.RecoveryDone && r.RevokedOld == 1
	})
	eventually(t, "the old device removed", func() bool { return only(t, sam).Removed })
	eventually(t, "the history read", func() bool {
		ms, err := laptop.Messages(ws, general)
		if err != nil {
			return false
		}
		for _, m := range ms {
			if m.Text == "before the loss" {
				return true
			}
		}
		return false
	})

	// Restarted, it is still done.
	a.Shutdown(context.Background())
	a = app.New(dir, io.Discard, nil)
	a.Startup(context.Background())
	t.Cleanup(func() { a.Shutdown(context.Background()) })
	laptop = app.Services(a)[2].(*app.Workspaces)
	if r := only(t, laptop).Recovery; r == nil || r.Stage != app.RecoveryDone {
		t.Fatalf("after a restart: %+v", r)
	}
}

// channelNamed returns the id of w's channel name in ws.
func channelNamed(t *testing.T, w *app.Workspaces, ws, name string) string {
	t.Helper()
	chans, err := w.Channels(ws)
	if err != nil {
		t.Fatal(err)
	}
	for _, ch := range chans {
		if ch.Name == name {
			return ch.ID
		}
	}
	t.Fatalf("no #%s in %s", name, names(chans))
	return ""
}
