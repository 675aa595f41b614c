package documents

import "strings"

// Touched returns the messages that changes (a concatenation of change
// chunks, as given to Apply or returned by Post, Edit and Delete) create or
// write to, once they are applied: what a message index must re-read after
// them. Changes it cannot decode and writes to objects outside the schema
// name no message.
func (s *Shard) Touched(changes []byte) []MessageID {
	cs, err := splitChanges(changes)
	if err != nil || s.indexChanges() != nil {
		return nil
	}
	seen := map[MessageID]bool{}
	var out []MessageID
	add := func(key string) {
		if !strings.HasPrefix(key, msgPrefix) {
			return
		}
		id, err := ParseMessageID(key[len(msgPrefix):])
		if err == nil && !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	for _, c := range cs {
		ops, err := decodeOps(c)
		if err != nil {
			continue
		}
		for _, o := range ops {
			if o.root {
				add(o.key)
			} else if key, ok := s.objects[o.obj]; ok {
				add(key)
			}
		}
	}
	return out
}
