package roster

import (
	"fmt"
	"testing"

	"weald/backend/identity"
)

// benchChain: bootstrap, 50 members by invite, 500 channels, 400 renames.
func benchChain(b *testing.B) *world {
	w := bootstrapped(b)
	for i := 0; i < 50; i++ {
		w.join(w.owner, RoleMember)
	}
	var chans []identity.GroupID
	for i := 0; i < 500; i++ {
		chans = append(chans, w.channel(w.owner, AdmissionParent, fmt.Sprintf("c%d", i)))
	}
	for i := 0; i < 400; i++ {
		w.must(w.owner.signer(), &RenameGroup{Group: chans[i], Name: fmt.Sprintf("r%d", i)})
	}
	return w
}

func BenchmarkValidateChain(b *testing.B) {
	w := benchChain(b)
	b.ResetTimer()
	for b.Loop() {
		if _, err := Validate(w.ops, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(w.ops)), "ns/operation")
	b.ReportMetric(float64(len(w.ops)), "ops/chain")
}

func BenchmarkSelfJoinGroups(b *testing.B) {
	w := benchChain(b)
	root := RootGroupID(w.ws)
	in := inSet(root)
	d := w.owner.id()
	b.ResetTimer()
	for b.Loop() {
		if n := len(w.st.SelfJoinGroups(d, in)); n != 502 {
			b.Fatal(n)
		}
	}
}
