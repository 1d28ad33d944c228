package stream

import (
	"context"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"singletable/repository"
	"singletable/repository/maintenance"
	"singletable/repository/saas"
)

// A migration's move reaches the table's stream as one UPDATED change of the ticket under its
// new key, not as its removal and creation: subscribers see the object change, not vanish.
func TestMigrateMovesAreOneUpdateOnTheStream(t *testing.T) {
	r := newLocalRepo(t, repository.Config{})
	ctx := context.Background()
	org, err := r.CreateOrganization(ctx, "Acme")
	if err != nil {
		t.Fatal(err)
	}
	u, err := r.CreateUser(ctx, org.ID, "Ada", "ada@example.com")
	if err != nil {
		t.Fatal(err)
	}
	id, at, err := r.NewEntityID()
	if err != nil {
		t.Fatal(err)
	}
	putTicketUnderOldKey(t, r, &saas.Ticket{ID: id, OrgID: org.ID, ReporterID: u.ID, Title: "written before", Body: "b", Status: saas.TicketOpen, CreatedAt: at, UpdatedAt: at})
	c := CollectStream(t, r.Stream, fastStream)
	c.WaitStream(t)
	if _, err := maintenance.New(r.Repo).Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	last, err := r.CreateOrganization(ctx, "after the migration")
	if err != nil {
		t.Fatal(err)
	}
	moved, err := saas.TicketKey(org.ID, id)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, ch := range c.Until(t, func(ch Change) bool { return ch.Key == last.Key() }) {
		if tk, ok := ch.Entity().(*saas.Ticket); ok && tk.ID == id {
			kinds = append(kinds, fmt.Sprint(ch.Kind, " ", ch.Key == moved))
		}
	}
	if fmt.Sprint(kinds) != "[UPDATED true]" {
		t.Fatalf("the move arrived as %v, want one UPDATED under the new key", kinds)
	}
}

// putTicketUnderOldKey writes tk as an earlier version did: under PK = SK = TICKET#<t>.
func putTicketUnderOldKey(t *testing.T, r *testRepo, tk *saas.Ticket) {
	t.Helper()
	item, err := saas.EncodeTicket(tk)
	if err != nil {
		t.Fatal(err)
	}
	old := repository.StringValue("TICKET#" + tk.ID)
	item[repository.AttrPK], item[repository.AttrSK] = old, old
	if _, err := r.DB.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(r.Table()), Item: item}); err != nil {
		t.Fatal(err)
	}
}
