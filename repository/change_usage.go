package repository

import (
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// AttrLogExpires is the attribute of the table's Time to Live (table_ttl.go): the change log's
// items carry it, in epoch seconds.
const AttrLogExpires = "expires"

// DefaultChangeRetention is Config.ChangeRetention when zero: a week of changes, longer than a
// laptop's weekend asleep, for about one write unit per change and scope (docs/data-model.md).
const DefaultChangeRetention = 168 * time.Hour

// changeLogUsage counts what the log cost: what the benchmark reports per change.
type changeLogUsage struct {
	mu sync.Mutex
	ChangeLogUsage
}

// ChangeLogUsage is what a Repo's appends to the change log wrote: the log items, the chunks
// (transactions), the changes numbered, the log items' estimated bytes, the write capacity units
// the transactions consumed with the log's head and checkpoints (as DynamoDB reported them), and
// the units DynamoDB bills a transaction on AWS, from the items' sizes (Billed: 2 per item and KB).
type ChangeLogUsage struct {
	Items, Chunks, Changes, Bytes int
	WCU, Billed                   float64
}

func (u *changeLogUsage) add(chunk ChangeLogUsage, consumed []types.ConsumedCapacity) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.Items, u.Changes, u.Bytes = u.Items+chunk.Items, u.Changes+chunk.Changes, u.Bytes+chunk.Bytes
	u.Chunks, u.Billed = u.Chunks+1, u.Billed+chunk.Billed
	for _, c := range consumed {
		u.WCU += aws.ToFloat64(c.CapacityUnits)
	}
}

// LogUsage is what this Repo's appends to the change log wrote so far.
func (r *Repo) LogUsage() ChangeLogUsage {
	r.logUsage.mu.Lock()
	defer r.logUsage.mu.Unlock()
	return r.logUsage.ChangeLogUsage
}

// ChangeRetention is how long a change stays in the log (CHANGE_RETENTION).
func (r *Repo) ChangeRetention() time.Duration { return r.retention }

// AddLogUsage counts one appended chunk of the change log and the capacity its transaction
// consumed.
func (r *Repo) AddLogUsage(chunk ChangeLogUsage, consumed []types.ConsumedCapacity) {
	r.logUsage.add(chunk, consumed)
}
