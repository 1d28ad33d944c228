package server_test

import (
	"strings"
	"testing"
	"time"

	"singletable/auth"
	"singletable/server"
)

// assignManager and assignMentor produce an UPDATED event of the employee whose manager or
// mentor changed, not only of the managers whose counts moved.
func TestAssignmentsProduceAnEventOfTheEmployee(t *testing.T) {
	a := newLiveAPI(t, server.Config{})
	f := a.hr()
	dept := f.department("Eng")
	boss := f.hire(dept, "Boss", hireOpts{})
	guide := f.hire(dept, "Guide", hireOpts{})
	report := f.hire(dept, "Report", hireOpts{})
	hr := a.dialWS(tokenFor(t, auth.Claims{Subject: "hr", Roles: []string{string(auth.RoleHR)}}))
	hr.subscribe("1", `subscription { employeeChanged { kind employee { name } } }`, nil)
	time.Sleep(300 * time.Millisecond)
	want := `{"employeeChanged":{"kind":"UPDATED","employee":{"name":"Report"}}}`
	for name, assign := range map[string]func() error{
		"assignManager": func() error { _, _, err := a.repo.AssignManager(t.Context(), report.ID, boss.ID); return err },
		"assignMentor":  func() error { _, _, err := a.repo.AssignMentor(t.Context(), report.ID, guide.ID); return err },
	} {
		if err := assign(); err != nil {
			t.Fatal(err)
		}
		var seen []string
		for deadline := time.Now().Add(waitFor); ; {
			e, m, ok := hr.nextEvent(time.Until(deadline))
			if !ok {
				t.Fatalf("%s: no UPDATED event of the employee (%+v); saw %v", name, m, seen)
			}
			if string(e.Data) == want {
				break
			}
			if !strings.Contains(string(e.Data), `"name":"Boss"`) && !strings.Contains(string(e.Data), `"kind":"CREATED"`) {
				seen = append(seen, string(e.Data))
			}
		}
	}
}
