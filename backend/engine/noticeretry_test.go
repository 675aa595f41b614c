package engine

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"

	"weald/backend/relay"
	"weald/backend/relay/relaytest"
	"weald/backend/relay/server"
	"weald/backend/roster"
	"weald/backend/wire"
)

// noticeRefuser is a relay that refuses the next n Welcome notices (a
// fault of its store: internal/error) and serves everything else.
type noticeRefuser struct {
	*relay.Service
	n atomic.Int32
}

func (r *noticeRefuser) WelcomeNotice(ctx context.Context, ws wire.ID, p server.Principal, n wire.WelcomeNotice) error {
	if r.n.Add(-1) >= 0 {
		return wire.Errorf(wire.CodeInternal, "The relay could not store that; try again.")
	}
	return r.Service.WelcomeNotice(ctx, ws, p, n)
}

// A Welcome notice the relay refuses stays owed and is sent again at the
// adder's next sync, until the relay keeps it: Dana adds Sam to a private
// channel while the relay refuses her notice; Sam, who reads only the logs
// his notices name, is not in it yet; after Dana's next sync he is. Before,
// the refused notice was dropped and Sam never learnt of the channel.
func TestRefusedWelcomeNoticeIsRetried(t *testing.T) {
	t.Parallel()
	var refuser *noticeRefuser
	h := relaytest.StartWrapped(t, relay.Config{}, func(s *relay.Service) server.Backend {
		refuser = &noticeRefuser{Service: s}
		return refuser
	})
	r := &testRelay{URL: h.URL, svc: h.Service, metrics: h.Metrics}
	ctx := testCtx(t)
	dana := createWorkspace(t, r, 150)
	sam := joinWith(t, r, invite(t, dana), "sam", 151)
	for _, e := range []*Engine{sam, dana} {
		if _, err := e.Sync(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := dana.CreateChannel(ctx, "secret", roster.AdmissionExplicit); err != nil {
		t.Fatal(err)
	}
	refuser.n.Store(1)
	if res, err := dana.AddPeople(ctx, "secret", []string{sam.meta.User.hex()}); err != nil || len(res.Added) != 1 {
		t.Fatalf("add: %+v %v", res, err)
	}
	if left := refuser.n.Load(); left >= 1 {
		t.Fatal("the add sent no Welcome notice")
	}
	inSecret := func() bool {
		if _, err := sam.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		return slices.ContainsFunc(sam.Channels(), func(c Channel) bool { return c.Name == "secret" && c.Member })
	}
	if inSecret() {
		t.Fatal("sam is in #secret without a notice: the test shows nothing")
	}
	if _, err := dana.Sync(ctx); err != nil { // the notice again
		t.Fatal(err)
	}
	if !inSecret() {
		t.Fatal("after Dana's next sync, sam is still not in #secret: the refused notice was not sent again")
	}
	if _, err := dana.Send(ctx, "secret", "psst"); err != nil {
		t.Fatal(err)
	}
	if _, err := sam.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if got := texts(t, sam, "secret"); !slices.Contains(got, "psst") {
		t.Fatalf("sam reads %q in #secret", got)
	}
}
