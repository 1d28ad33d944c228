package saas

import (
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/repository"
)

// SaasSampleItems is the organizations of the sample dataset: three organizations with four users
// each, every user with five tickets spread over the past weeks (each at its version 1).
func SaasSampleItems() ([]map[string]types.AttributeValue, error) {
	base := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	orgs := []struct {
		name   string
		domain string
		users  []string
	}{
		{"Acme Corporation", "acme.example", []string{"Ada Lovelace", "Grace Hopper", "Alan Turing", "Edsger Dijkstra"}},
		{"Globex", "globex.example", []string{"Hank Scorpio", "Homer Simpson", "Lenny Leonard", "Carl Carlson"}},
		{"Initech", "initech.example", []string{"Peter Gibbons", "Samir Nagheenanajar", "Michael Bolton", "Milton Waddams"}},
	}
	titles := []string{"Cannot log in", "Export to CSV fails", "Invoice shows the wrong total", "Dark mode request", "Slow dashboard"}
	statuses := []TicketStatus{TicketOpen, TicketPending, TicketClosed, TicketOpen, TicketPending}
	var items []map[string]types.AttributeValue
	add := func(item map[string]types.AttributeValue, err error) error {
		if err != nil {
			return err
		}
		items = append(items, item)
		return nil
	}
	for oi, o := range orgs {
		orgAt := base.Add(time.Duration(oi) * time.Hour)
		org := &Organization{ID: repository.SeedID(orgAt, "org/"+o.name), Name: o.name, CreatedAt: orgAt}
		if err := add(organizationEntity.Encode(org)); err != nil {
			return nil, err
		}
		for ui, name := range o.users {
			userAt := orgAt.Add(time.Duration(ui+1) * time.Minute)
			email := strings.ToLower(strings.Fields(name)[0]) + "@" + o.domain
			u := &User{ID: repository.SeedID(userAt, "user/"+name), OrgID: org.ID, Name: name, Email: email, CreatedAt: userAt}
			if err := add(UserEntity.Encode(u)); err != nil {
				return nil, err
			}
			items = append(items, EmailGuardItem(u))
			for ti, title := range titles {
				at := userAt.Add(time.Duration(ti*24+ui) * time.Hour * 7)
				t := &Ticket{
					ID: repository.SeedID(at, "ticket/"+name+"/"+title), OrgID: org.ID, ReporterID: u.ID,
					Title: title, Body: "Reported by " + name + ": " + title + ".", Status: statuses[(ti+ui)%len(statuses)],
					CreatedAt: at, UpdatedAt: at, Version: 1,
				}
				if err := add(TicketEntity.Encode(t)); err != nil {
					return nil, err
				}
				if err := add(TicketVersionEntity.Encode(VersionOf(t, at))); err != nil {
					return nil, err
				}
			}
		}
	}
	return items, nil
}
