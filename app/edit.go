package app

import "strings"

// EditMessage replaces the text of one of your messages of a channel (an
// Automerge change sent like a message; receivers accept it from the
// author's device only) and returns the message as edited. The edit waits
// in the outbox, after what you sent before it, and goes out by itself once
// connected (the message shows Change "edit" until then).
func (w *Workspaces) EditMessage(ws, channel, id, text string) (Message, error) {
	r, err := w.run(ws)
	if err != nil {
		return Message{}, err
	}
	text, terr := checkText(text)
	if terr != nil {
		return Message{}, terr
	}
	ctx, cancel := w.callCtx()
	defer cancel()
	m, eerr := r.eng.QueueEdit(ctx, channel, id, text)
	if eerr != nil {
		return Message{}, toError(eerr)
	}
	return w.toMessage(r, r.eng.Status().User, strings.ToLower(channel), m), nil
}

// DeleteMessage deletes one of your messages of a channel: it leaves every
// member's history and search once their devices sync. The delete waits in
// the outbox like an edit (a message still waiting there is dropped).
func (w *Workspaces) DeleteMessage(ws, channel, id string) error {
	r, err := w.run(ws)
	if err != nil {
		return err
	}
	ctx, cancel := w.callCtx()
	defer cancel()
	if err := r.eng.QueueDelete(ctx, channel, id); err != nil {
		return toError(err)
	}
	return nil
}
