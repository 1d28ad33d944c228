package server_test

import (
	"fmt"
	"sync"
	"testing"

	"singletable/server"
)

// race runs fns at the same moment, each in its own goroutine, and returns their error codes
// ("" for success).
func race(fns ...func() gqlResponse) []string {
	codes := make([]string, len(fns))
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, fn := range fns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			r := fn()
			if len(r.Errors) > 0 {
				c, _ := r.Errors[0].Extensions["code"].(string)
				codes[i] = c
			}
		}()
	}
	close(start)
	wg.Wait()
	return codes
}

// Eight transfers of one employee to eight departments, at once, several rounds. Each transfer
// either wins or gets CONFLICT (if DynamoDB happens to run some one after another, each of those
// reads the previous one's result and wins too: that is correct); at least one wins; afterwards
// the employee is a member of exactly one department, the one its duplicated fields name.
func TestConcurrentTransfersOfOneEmployee(t *testing.T) {
	a := newAPI(t, server.Config{})
	f := a.hr()
	home := f.department("Home")
	var targets []string
	all := []string{departmentID(home)}
	for i := range 8 {
		d := f.department(fmt.Sprintf("Target %d", i))
		targets = append(targets, departmentID(d))
		all = append(all, departmentID(d))
	}
	emp := employeeID(f.hire(home, "Nomad", hireOpts{}))

	conflicts := 0
	for round := range 5 {
		fns := make([]func() gqlResponse, len(targets))
		for i, d := range targets {
			fns[i] = func() gqlResponse { return a.query(transferMutation, map[string]any{"e": emp, "d": d}) }
		}
		codes := race(fns...)
		wins := 0
		for _, c := range codes {
			switch c {
			case "":
				wins++
			case "CONFLICT":
				conflicts++
			default:
				t.Fatalf("round %d: a transfer failed with %s", round, c)
			}
		}
		if wins == 0 {
			t.Fatalf("round %d: no transfer won: %v", round, codes)
		}

		var out struct {
			Employee struct {
				DepartmentName string
				Department     struct{ ID, Name string }
			}
		}
		a.ok(`query($id: ID!) { employee(id: $id) { departmentName department { id name } } }`, map[string]any{"id": emp}, &out)
		var in []string
		for _, d := range all {
			for _, m := range a.members(d).Edges {
				if m.Node.ID == emp {
					in = append(in, d)
				}
			}
		}
		if len(in) != 1 || in[0] != out.Employee.Department.ID || out.Employee.DepartmentName != out.Employee.Department.Name {
			t.Fatalf("round %d (%d won): member of %v; employee says %+v", round, wins, in, out.Employee)
		}
		t.Logf("round %d: %d won, codes %v", round, wins, codes)
	}
	if conflicts == 0 {
		t.Log("no transfer lost in any round: DynamoDB Local ran them all one after another")
	}
}

// x under y and y under x, at once: they must not both succeed, or x and y would manage each
// other. Each transaction re-checks the chain it read, so the second to commit fails.
func TestConcurrentManagerAssignmentsCannotBuildACycle(t *testing.T) {
	a := newAPI(t, server.Config{})
	f := a.hr()
	d := f.department("Ring")
	for round := range 10 {
		x := employeeID(f.hire(d, fmt.Sprintf("x%d", round), hireOpts{}))
		y := employeeID(f.hire(d, fmt.Sprintf("y%d", round), hireOpts{}))
		codes := race(
			func() gqlResponse { return a.query(managerMutation, map[string]any{"e": x, "m": y}) },
			func() gqlResponse { return a.query(managerMutation, map[string]any{"e": y, "m": x}) },
		)
		wins := 0
		for _, c := range codes {
			switch c {
			case "":
				wins++
			case "CONFLICT", "BAD_USER_INPUT": // lost the race at commit, or read the winner's write
			default:
				t.Fatalf("round %d: %v", round, codes)
			}
		}
		if wins != 1 {
			t.Fatalf("round %d: %d assignments won (%v), want exactly 1", round, wins, codes)
		}
		var out struct {
			X struct{ Manager *struct{ ID string } }
			Y struct{ Manager *struct{ ID string } }
		}
		a.ok(`query($x: ID!, $y: ID!) { x: employee(id: $x) { manager { id } } y: employee(id: $y) { manager { id } } }`, map[string]any{"x": x, "y": y}, &out)
		if (out.X.Manager != nil) == (out.Y.Manager != nil) {
			t.Fatalf("round %d: x's manager %+v, y's manager %+v", round, out.X.Manager, out.Y.Manager)
		}
	}
}
