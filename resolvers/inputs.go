package resolvers

import (
	"singletable/graph/model"
	"singletable/repository/commerce"
	"singletable/repository/hr"
	"singletable/repository/saas"
)

// Mutation inputs as the repository takes them, so that each mutation resolver stays one line
// (mutate.go). They only copy: the repository validates what they carry.

func ticketPatch(in model.UpdateTicketInput) saas.TicketPatch {
	return saas.TicketPatch{Status: in.Status, Title: in.Title, Body: in.Body, ExpectedVersion: in.ExpectedVersion}
}

func locationInput(in model.CreateLocationInput) hr.LocationInput {
	return hr.LocationInput{Country: in.Country, State: in.State, City: in.City, PostalCode: in.PostalCode, Address: in.Address}
}

// hireInput is in with the keys its IDs decoded to (given3): the department, and the manager and
// mentor when given.
func hireInput(in model.HireEmployeeInput, department string, manager, mentor *string) hr.HireInput {
	return hr.HireInput{
		DepartmentID: department, Name: in.Name, Email: in.Email, JobTitle: in.JobTitle,
		HiredAt: in.HiredAt, ManagerID: manager, MentorID: mentor,
	}
}

func mailingAddresses(in []*model.MailingAddressInput) []commerce.MailingAddress {
	out := make([]commerce.MailingAddress, len(in))
	for i, a := range in {
		out[i] = a.Address()
	}
	return out
}

func orderLines(in []*model.OrderItemInput) []commerce.OrderLine {
	out := make([]commerce.OrderLine, len(in))
	for i, it := range in {
		out[i] = commerce.OrderLine{SKU: it.Sku, ProductName: it.ProductName, Quantity: it.Quantity, UnitPriceCents: int64(it.UnitPriceCents)}
	}
	return out
}
