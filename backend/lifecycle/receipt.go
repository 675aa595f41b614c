package lifecycle

import (
	"encoding/json"
	"os"
	"path/filepath"
	"time"
)

// Receipt is the artifact an auditor asks for (spec/lifecycle.md
// "Removing a person", step 6): the operation, the person, the groups
// rotated, the devices and agents revoked and when. It is what the
// removal-receipt roster operation recorded, with names for reading.
type Receipt struct {
	Operation      ID             `json:"operation"`
	User           ID             `json:"user"`
	Name           string         `json:"name,omitempty"`
	Channel        ID             `json:"channel,omitempty"`
	Groups         []RotatedGroup `json:"groups_rotated"`
	DevicesRevoked int            `json:"devices_revoked"`
	AgentsRevoked  int            `json:"agents_revoked"`
	Revoked        []Principal    `json:"revoked"`
	AccessVersion  uint64         `json:"access_set_version,omitempty"`
	At             time.Time      `json:"timestamp"`
	RosterIndex    int            `json:"roster_index"`
	By             ID             `json:"by_device"`
}

// RotatedGroup is one group the removal rotated, with the epoch its Remove
// commit created.
type RotatedGroup struct {
	Group ID     `json:"group"`
	Name  string `json:"name,omitempty"`
	Epoch uint64 `json:"epoch"`
}

// Export writes each receipt as dir/removal-<operation>.json (indented),
// and returns the paths written.
func Export(dir string, receipts []Receipt) ([]string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	var paths []string
	for _, r := range receipts {
		b, err := json.MarshalIndent(r, "", "  ")
		if err != nil {
			return nil, err
		}
		p := filepath.Join(dir, "removal-"+r.Operation.Hex()+".json")
		if err := os.WriteFile(p, append(b, '\n'), 0o600); err != nil {
			return nil, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}
