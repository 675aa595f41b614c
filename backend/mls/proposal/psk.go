package proposal

import "weald/backend/mls/keyschedule"

// The RFC 9420 §8.4 PreSharedKeyID a PreSharedKey proposal carries is the key
// schedule's own type: one definition, one codec.
type (
	PSKType            = keyschedule.PSKType
	ResumptionPSKUsage = keyschedule.ResumptionPSKUsage
	PreSharedKeyID     = keyschedule.PreSharedKeyID
)

// PSK types and resumption usages, as keyschedule names them.
const (
	PSKExternal      = keyschedule.PSKExternal
	PSKResumption    = keyschedule.PSKResumption
	UsageApplication = keyschedule.UsageApplication
	UsageReInit      = keyschedule.UsageReinit
	UsageBranch      = keyschedule.UsageBranch
)
