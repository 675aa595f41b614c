package app

import (
	"sort"
	"strings"
)

// People, private-channel adds and direct messages for the desktop app
// (spec/channels.md "Explicit groups and the pending add"; docs/protocol/dm.md).

// Person is someone in the workspace, as the people picker and the
// new-message chooser show them.
type Person struct {
	User    string `json:"user"`
	Name    string `json:"name"`
	You     bool   `json:"you"`
	Devices int    `json:"devices"`
}

// ChannelMember is a device in a channel, or a pending add: added, and
// waiting for that device to check in since Since (Unix milliseconds).
type ChannelMember struct {
	User    string `json:"user"`
	Name    string `json:"name"`
	Device  string `json:"device"`
	You     bool   `json:"you"`
	Pending bool   `json:"pending"`
	Since   int64  `json:"since"`
	// Agent: an agent's leaf (User and Device are its agent id), issued by
	// a device of OwnerName.
	Agent     bool   `json:"agent,omitempty"`
	OwnerName string `json:"ownerName,omitempty"`
}

// AddResult counts the devices an add put in the channel and those left
// as pending adds.
type AddResult struct {
	Added   int `json:"added"`
	Pending int `json:"pending"`
}

// DMSent is a direct message sent (or waiting to be: its State says) and
// the DM it went to.
type DMSent struct {
	Channel Channel `json:"channel"`
	Message Message `json:"message"`
}

// People lists the workspace's people (not removed), you first.
func (w *Workspaces) People(ws string) ([]Person, error) {
	r, err := w.run(ws)
	if err != nil {
		return nil, err
	}
	ctx, cancel := w.callCtx()
	defer cancel()
	ms, merr := r.eng.Members(ctx, "")
	if merr != nil {
		return nil, toError(merr)
	}
	me := r.eng.Status().User
	byUser := map[string]*Person{}
	var out []*Person
	for _, m := range ms {
		if m.Revoked || m.Agent {
			continue
		}
		p := byUser[m.User]
		if p == nil {
			p = &Person{User: m.User, Name: w.personName(r, me, m.User), You: m.User == me}
			byUser[m.User] = p
			out = append(out, p)
		}
		p.Devices++
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].You && !out[j].You })
	list := make([]Person, 0, len(out))
	for _, p := range out {
		list = append(list, *p)
	}
	return list, nil
}

// ChannelMembers lists the devices in a channel or DM, then its pending
// adds.
func (w *Workspaces) ChannelMembers(ws, channel string) ([]ChannelMember, error) {
	r, err := w.run(ws)
	if err != nil {
		return nil, err
	}
	ctx, cancel := w.callCtx()
	defer cancel()
	ms, merr := r.eng.Members(ctx, channel)
	if merr != nil {
		return nil, toError(merr)
	}
	pend, perr := r.eng.PendingAdds(channel)
	if perr != nil {
		return nil, toError(perr)
	}
	me := r.eng.Status().User
	out := []ChannelMember{}
	for _, m := range ms {
		if m.Agent {
			out = append(out, ChannelMember{User: m.User, Name: m.Name, Device: m.Device, Agent: true, OwnerName: m.OwnerName})
			continue
		}
		out = append(out, ChannelMember{User: m.User, Name: w.personName(r, me, m.User), Device: m.Device, You: m.You})
	}
	for _, p := range pend {
		out = append(out, ChannelMember{User: p.User, Name: w.personName(r, me, p.User), Device: p.Device,
			Pending: true, Since: p.Since.UnixMilli()})
	}
	return out, nil
}

// HistoryVerifiedFrom is when this device's verified history of a channel
// or DM begins, in Unix milliseconds: the time of the checkpoint it read
// the earlier history from, because that history had been compacted on
// the relay before this device joined, so it could check the checkpoint's
// signature but not the author chains beneath it (spec/lifecycle.md
// "Interaction with open history"). 0: this device verified the whole
// history itself. The member list shows it.
func (w *Workspaces) HistoryVerifiedFrom(ws, channel string) (int64, error) {
	r, err := w.run(ws)
	if err != nil {
		return 0, err
	}
	info, rerr := r.eng.Retention(channel)
	if rerr != nil {
		return 0, toError(rerr)
	}
	return unixMs(info.VerifiedFrom), nil
}

// AddPeople adds every device of each person (user ids) to a private
// channel in one commit; devices without a key package on the relay become
// pending adds.
func (w *Workspaces) AddPeople(ws, channel string, users []string) (AddResult, error) {
	r, err := w.run(ws)
	if err != nil {
		return AddResult{}, err
	}
	if len(users) == 0 {
		return AddResult{}, &Error{Code: "bad_request/empty", Message: "Pick at least one person to add."}
	}
	ctx, cancel := w.callCtx()
	defer cancel()
	res, aerr := r.eng.AddPeople(ctx, channel, users)
	if aerr != nil {
		return AddResult{}, toError(aerr)
	}
	go w.emitChannels(r)
	return AddResult{Added: len(res.Added), Pending: len(res.Pending)}, nil
}

// SendDM sends text to the person user (a user id); the first message
// starts the DM. When the other person started it at the same moment, the
// message waits ("pending") until their device adds this one.
func (w *Workspaces) SendDM(ws, user, text string) (DMSent, error) {
	r, err := w.run(ws)
	if err != nil {
		return DMSent{}, err
	}
	text, terr := checkText(text)
	if terr != nil {
		return DMSent{}, terr
	}
	ctx, cancel := w.callCtx()
	defer cancel()
	res, derr := r.eng.SendDM(ctx, user, text)
	if derr != nil {
		return DMSent{}, toError(derr)
	}
	ch, cerr := w.channel(r, res.Channel)
	if cerr != nil {
		return DMSent{}, cerr
	}
	go w.emitChannels(r)
	return DMSent{Channel: ch, Message: w.toMessage(r, r.eng.Status().User, strings.ToLower(res.Channel), res.Message)}, nil
}
