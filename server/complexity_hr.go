package server

import (
	"time"

	"singletable/graph"
)

// hrComplexity prices the HR domain's connection fields by `first`, like the SaaS ones.
func hrComplexity(c *graph.ComplexityRoot) {
	page := func(child int, first *int, _ *string) int { return list(child, first) }
	c.Query.Departments = page
	c.Query.EmployeesByJobTitle = func(child int, _ string, first *int, after *string) int { return page(child, first, after) }
	c.Query.EmployeesHiredSince = func(child int, _ time.Time, first *int, after *string) int { return page(child, first, after) }
	c.Query.Locations = func(child int, _ string, _, _, _ *string, first *int, after *string) int {
		return page(child, first, after)
	}
	c.Department.Employees = page
	c.Employee.DirectReports = page
	c.Employee.Mentees = page
}
