package app

import (
	"context"
	"errors"
	"time"

	"weald/backend/engine"
	"weald/backend/lifecycle"
)

// The admin member list (issue 12; spec/lifecycle.md "Removing a person").

// MemberDevice is one device of a person in the admin member list.
type MemberDevice struct {
	Device    string `json:"device"`
	Revoked   bool   `json:"revoked"`
	You       bool   `json:"you"`
	Probation bool   `json:"probation"`
	// LastSeen: the newest date this device saw it active (a message it
	// wrote, a roster change it signed; engine.LastSeen), unix ms; 0: not
	// seen since joining.
	LastSeen int64 `json:"lastSeen"`
	// Waiting: the channels that added it and wait for it to check in
	// (pending adds).
	Waiting []Waiting `json:"waiting"`
	// Agents: the agents whose certificate it issued and that are not
	// revoked (expired ones included): what RevokeAgentsIssuedBy revokes.
	Agents int `json:"agents"`
	// CanApprove: on probation, and this is an admin device admitted
	// before it (ApproveDevice).
	CanApprove bool `json:"canApprove"`
}

// Waiting is a pending add of a device: "waiting for that device to check
// in" to a channel since a date.
type Waiting struct {
	Channel string `json:"channel"`
	Since   int64  `json:"since"` // unix ms
}

// AdminMember is one row of the admin member list.
type AdminMember struct {
	User    string         `json:"user"`
	Name    string         `json:"name"`
	Role    Role           `json:"role" ts_type:"'member' | 'admin'"`
	Revoked bool           `json:"revoked"`
	You     bool           `json:"you"`
	Joined  int64          `json:"joined"` // unix ms
	Devices []MemberDevice `json:"devices"`
	// Removal is an unfinished removal of this person started on this
	// device: running (it resumes by itself) or waiting for reapproval.
	Removal *Removal `json:"removal"`
}

// RotatedGroup is one group a removal rotated.
type RotatedGroup struct {
	Name  string `json:"name"`
	Epoch uint64 `json:"epoch"`
}

// Receipt is a removal receipt as the member list shows and exports it.
type Receipt struct {
	Operation      string         `json:"operation"`
	User           string         `json:"user"`
	Name           string         `json:"name"`
	Channel        string         `json:"channel"`
	Groups         []RotatedGroup `json:"groups"`
	DevicesRevoked int            `json:"devicesRevoked"`
	AgentsRevoked  int            `json:"agentsRevoked"`
	AccessVersion  uint64         `json:"accessVersion"`
	At             int64          `json:"at"` // unix ms
}

// Removal is where a removal stands: "done" with its receipt, or
// "needs_reapproval" with the changes another admin made meanwhile.
type Removal struct {
	Operation   string       `json:"operation"`
	State       RemovalState `json:"state" ts_type:"'running' | 'needs_reapproval' | 'done'"`
	Step        RemovalStep  `json:"step" ts_type:"'revoke' | 'rotate' | 'wraps' | 'invites' | 'access' | 'receipt' | 'done'"`
	Intervening []string     `json:"intervening"`
	Receipt     *Receipt     `json:"receipt"`
}

// removalTimeout bounds one removal call (512 groups took 22 s under load).
const removalTimeout = 5 * time.Minute

// AdminMembers lists every person of the workspace, removed ones too, with
// devices, role and when they joined.
func (w *Workspaces) AdminMembers(ws string) ([]AdminMember, error) {
	r, err := w.run(ws)
	if err != nil {
		return nil, err
	}
	ctx, cancel := w.callCtx()
	defer cancel()
	devs, merr := r.eng.Members(ctx, "")
	if merr != nil {
		return nil, toError(merr)
	}
	pend, perr := r.eng.PendingAdds("")
	if perr != nil {
		return nil, toError(perr)
	}
	ops, oerr := r.eng.Removals(ctx)
	if oerr != nil {
		return nil, toError(oerr)
	}
	seen, serr := r.eng.LastSeen(ctx)
	if serr != nil {
		return nil, toError(serr)
	}
	issued := map[string]int{}
	for _, a := range r.eng.Agents() {
		if a.State != string(AgentRevoked) {
			issued[a.Device]++
		}
	}
	approvable := r.eng.ProbationApprovable()
	out := []AdminMember{}
	for _, p := range r.eng.People() {
		row := AdminMember{User: p.User, Name: p.Name, Role: Role(p.Role), Revoked: p.Revoked, You: p.You, Joined: p.Joined.UnixMilli(), Devices: []MemberDevice{}}
		for _, d := range devs {
			if d.User != p.User {
				continue
			}
			md := MemberDevice{Device: d.Device, Revoked: d.Revoked, You: d.You, Probation: d.Probation, Waiting: []Waiting{},
				Agents: issued[d.Device], CanApprove: approvable[d.Device]}
			if at, ok := seen[d.Device]; ok {
				md.LastSeen = at.UnixMilli()
			}
			for _, pm := range pend {
				if pm.Device == d.Device {
					md.Waiting = append(md.Waiting, Waiting{Channel: pm.Channel, Since: pm.Since.UnixMilli()})
				}
			}
			row.Devices = append(row.Devices, md)
		}
		for _, op := range ops {
			if op.User.Hex() == p.User && op.State != lifecycle.StateDone {
				rm := toRemoval(op)
				row.Removal = &rm
			}
		}
		out = append(out, row)
	}
	return out, nil
}

// RemovalPlan is what removing a person would do, shown before the admin
// confirms (engine.PlanRemoval).
type RemovalPlan struct {
	User    string `json:"user"`
	Name    string `json:"name"`
	Channel string `json:"channel"`
	Devices int    `json:"devices"`
	Agents  int    `json:"agents"`
	// Groups: channels (and the workspace root) the removal rotates.
	Groups int `json:"groups"`
	// NotMember: groups this device is not in, which it cannot rotate.
	NotMember    int `json:"notMember"`
	Invites      int `json:"invites"`
	RecoveryKeys int `json:"recoveryKeys"`
	// Resumes: an unfinished (or finished) removal of this person exists;
	// Remove continues (or returns) it.
	Resumes string `json:"resumes"`
}

// PlanRemoval says what removing a person (from the workspace, or with
// channel from one explicit channel) would do, refusing up front what
// RemovePerson would refuse (removal/last_admin, removal/self, …).
func (w *Workspaces) PlanRemoval(ws, user, channel string) (RemovalPlan, error) {
	r, err := w.run(ws)
	if err != nil {
		return RemovalPlan{}, err
	}
	ctx, cancel := w.callCtx()
	defer cancel()
	p, perr := r.eng.PlanRemoval(ctx, user, channel)
	if perr != nil {
		return RemovalPlan{}, toError(perr)
	}
	return RemovalPlan{User: p.User, Name: p.Name, Channel: p.Channel, Devices: p.Devices, Agents: p.Agents, Groups: p.Groups,
		NotMember: p.NotMember, Invites: p.Invites, RecoveryKeys: p.RecoveryKeys, Resumes: p.Resumes}, nil
}

// DeviceRevocation is what revoking one device did.
type DeviceRevocation struct {
	Device        string   `json:"device"`
	Agents        int      `json:"agents"`
	Groups        []string `json:"groups"`
	AccessVersion uint64   `json:"accessVersion"`
}

// RevokeDevice revokes one device (a lost or stolen one): the device and
// the agents it issued are revoked, every channel of this device holding
// it is rotated, and an admin publishes the access set without it.
func (w *Workspaces) RevokeDevice(ws, device string) (DeviceRevocation, error) {
	r, err := w.run(ws)
	if err != nil {
		return DeviceRevocation{}, err
	}
	ctx, cancel := w.callCtx()
	cancel()
	ctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), removalTimeout)
	defer cancel()
	res, rerr := r.eng.RevokeDevice(ctx, device)
	if rerr != nil {
		return DeviceRevocation{}, toError(rerr)
	}
	if err := w.acknowledge(r, OutcomeRevoked, concerning(res.Device)); err != nil {
		w.app.logger.Printf("workspace %s: %s", r.id, err.Message)
	}
	return DeviceRevocation{Device: res.Device, Agents: res.Agents, Groups: append([]string{}, res.Groups...), AccessVersion: res.AccessVersion}, nil
}

// ReceiptExport is where ExportReceipt wrote a receipt.
type ReceiptExport struct {
	JSON string `json:"json"`
	Page string `json:"page"`
}

// ExportReceipt writes one removal receipt as JSON and as a printable
// page (removal-<operation>.json and .html) into the Downloads folder,
// or the data directory's receipts folder when there is none.
func (w *Workspaces) ExportReceipt(ws, operation string) (ReceiptExport, error) {
	r, err := w.run(ws)
	if err != nil {
		return ReceiptExport{}, err
	}
	for _, rc := range r.eng.Receipts() {
		if rc.Operation.Hex() != operation {
			continue
		}
		dir := w.app.exportDir()
		paths, xerr := lifecycle.Export(dir, []lifecycle.Receipt{rc})
		if xerr != nil {
			return ReceiptExport{}, &Error{Code: "storage/write_failed", Message: sentenceOf("the receipt could not be written to " + dir + ": " + xerr.Error())}
		}
		page, xerr := lifecycle.ExportPage(dir, rc, r.eng.Status().Name)
		if xerr != nil {
			return ReceiptExport{}, &Error{Code: "storage/write_failed", Message: sentenceOf("the receipt could not be written to " + dir + ": " + xerr.Error())}
		}
		return ReceiptExport{JSON: paths[0], Page: page}, nil
	}
	return ReceiptExport{}, toError(lifecycle.ErrUnknown)
}

// RemovePerson removes a person from the workspace (channel "") or from
// one explicit channel, resuming the unfinished removal of the same person
// if there is one; progress arrives as "removal/<step>" progress events.
func (w *Workspaces) RemovePerson(ws, user, channel string, reapprove bool) (Removal, error) {
	r, err := w.run(ws)
	if err != nil {
		return Removal{}, err
	}
	ctx, cancel := w.callCtx()
	cancel()
	ctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), removalTimeout)
	defer cancel()
	op, rerr := r.eng.Remove(ctx, user, engine.RemoveOptions{Channel: channel, Reapprove: reapprove})
	if rerr != nil && !(errors.Is(rerr, lifecycle.ErrPaused) && op != nil) {
		return Removal{}, toError(rerr)
	}
	return toRemoval(op), nil
}

func toRemoval(op *lifecycle.RemovalOperation) Removal {
	out := Removal{Operation: op.ID.Hex(), State: RemovalState(op.State), Step: RemovalStep(op.Step), Intervening: append([]string{}, op.Intervening...)}
	if op.Receipt != nil {
		rc := toReceipt(*op.Receipt)
		out.Receipt = &rc
	}
	return out
}

// Receipts lists the removal receipts of the membership log.
func (w *Workspaces) Receipts(ws string) ([]Receipt, error) {
	r, err := w.run(ws)
	if err != nil {
		return nil, err
	}
	out := []Receipt{}
	for _, rc := range r.eng.Receipts() {
		out = append(out, toReceipt(rc))
	}
	return out, nil
}

// SetAdmin promotes (admin true) or demotes a person; demoting the last
// admin is refused (removal/last_admin).
func (w *Workspaces) SetAdmin(ws, user string, admin bool) error {
	r, err := w.run(ws)
	if err != nil {
		return err
	}
	ctx, cancel := w.callCtx()
	defer cancel()
	f := r.eng.Demote
	if admin {
		f = r.eng.Promote
	}
	if err := f(ctx, user); err != nil {
		return toError(err)
	}
	return nil
}

func toReceipt(r lifecycle.Receipt) Receipt {
	out := Receipt{Operation: r.Operation.Hex(), User: r.User.Hex(), Name: r.Name, DevicesRevoked: r.DevicesRevoked,
		AgentsRevoked: r.AgentsRevoked, AccessVersion: r.AccessVersion, At: r.At.UnixMilli(), Groups: []RotatedGroup{}}
	if !r.Channel.IsZero() {
		out.Channel = r.Channel.Hex()
	}
	for _, g := range r.Groups {
		out.Groups = append(out.Groups, RotatedGroup{Name: g.Name, Epoch: g.Epoch})
	}
	return out
}
