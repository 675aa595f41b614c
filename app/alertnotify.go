package app

import (
	"context"
	"time"

	"weald/app/notify"
)

// notifyAlert shows a security alert as an OS notification (spec/
// lifecycle.md "Detection": shown "without anybody going looking"): an
// alert in red, not a notice, and the workspace's notifications are not
// "none". The caller calls it only while the window is not focused
// (focused, the banner shows it). A click opens the workspace's Security
// view (OpenFromNotification).
func (w *Workspaces) notifyAlert(r *wsRun, a Alert) {
	w.mu.Lock()
	n := w.notifier
	w.mu.Unlock()
	if n == nil || a.Tone != ToneAlert {
		return
	}
	r.mu.Lock()
	level := notifyLevel(r.prefs)
	r.mu.Unlock()
	name := r.eng.Status().Name
	if level == NotifyNone {
		return
	}
	ctx, cancel := context.WithTimeout(r.ctx, 10*time.Second)
	defer cancel()
	note := notify.Notification{Title: "Security alert in " + name, Body: a.Message, Workspace: r.id, Kind: notify.KindSecurity}
	if err := n.Notify(ctx, note); err != nil {
		w.app.logger.Printf("notification for an alert in %s: %v", r.id[:min(8, len(r.id))], err)
	}
}

// focused reports whether the window has focus (SetAttention).
func (w *Workspaces) focused() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.attention.focused
}
