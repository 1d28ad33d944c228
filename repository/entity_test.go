package repository

import (
	"strings"
	"testing"
)

func TestKeyTableShowsEveryDefinition(t *testing.T) {
	table := KeyTable()
	for _, d := range definitions {
		if !strings.Contains(table, "| "+d.typeName()+" |") {
			t.Errorf("no row for %s", d.typeName())
		}
	}
	for _, want := range []string{
		"| User | `ORG#<orgId>` | `USER#<userId>` | GSI1: `ORG#<orgId>#USER#<userId> / USER#<userId>` |",
		"GSI1: `DEPT#<targetId>#REL#DEPARTMENT / EMP#<employeeId>`",
		"GSI1: `EMP#<targetId>#REL#MANAGER / EMP#<employeeId>`",
		"GSI2: `TYPE#Employee / <hiredAt>#<employeeId>`",
		"GSI3: `ORDERSTATUS#<status>#<shard> / <orderId>`",
		"| UserEmail | `USEREMAIL#<orgId>#<email>` | `USEREMAIL` |  | userId |",
		"| OrderIdempotency | `IDEMPOTENCY#<customerId>#<key>` | `IDEMPOTENCY` |  | createdAt, orderId, requestHash |",
	} {
		if !strings.Contains(table, want) {
			t.Errorf("key table lacks %q:\n%s", want, table)
		}
	}
	if strings.Contains(table, "2001") {
		t.Errorf("an example time leaked into the table:\n%s", table)
	}
}
