package server_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"singletable/auth"
	"singletable/changefeed"
	"singletable/server"
)

// A principal holds at most MaxPerOwner subscriptions at once (MAX_SUBSCRIPTIONS_PER_PRINCIPAL):
// past it a subscription is RATE_LIMITED with extensions.limit "subscriptions"; another
// principal still subscribes.
func TestAPrincipalHoldsAtMostItsShareOfSubscriptions(t *testing.T) {
	a, _ := newLiveAPIWithHubOptions(t, server.Config{}, changefeed.Options{MaxPerOwner: 3})
	d := a.seedSaaS(1, 1, 0)
	vars := map[string]any{"org": orgID(d.orgs[0])}
	raw, _ := json.Marshal(map[string]any{"query": ticketSubscription, "variables": vars})
	ws := a.dialWS(adminToken(t))
	ws.subscribe("0", ticketSubscription, vars)
	for i := 1; i < 4; i++ {
		ws.send(wsMessage{ID: fmt.Sprint(i), Type: "subscribe", Payload: raw})
	}
	// Subscribe messages are served concurrently: whichever of 1–3 reaches the hub last is the
	// fourth, refused, and then completed.
	refused := ""
	for deadline := time.Now().Add(waitFor); ; {
		m, err := ws.next(time.Until(deadline))
		if err != nil {
			t.Fatalf("no subscription was refused (%v)", err)
		}
		if m.Type == "next" && strings.Contains(string(m.Payload), `"code":"RATE_LIMITED"`) && strings.Contains(string(m.Payload), `"limit":"subscriptions"`) {
			refused = m.ID
		}
		if m.Type == "complete" && m.ID == refused {
			break
		}
		if m.Type == "complete" || m.Type == "error" {
			t.Fatalf("subscription %s ended (%s %s), not the refused one %q", m.ID, m.Type, m.Payload, refused)
		}
	}
	other := a.dialWS(tokenFor(t, auth.Claims{Subject: "another-admin", Roles: []string{"admin"}}))
	other.subscribe("1", ticketSubscription, vars)
	time.Sleep(300 * time.Millisecond)
	if _, err := a.repo.CreateTicket(t.Context(), d.orgs[0].ID, d.users[d.orgs[0].ID][0].ID, "For the other", "b"); err != nil {
		t.Fatal(err)
	}
	if e, m, ok := other.nextEvent(waitFor); !ok || len(e.Errors) > 0 {
		t.Fatalf("another principal's subscription: %+v %+v", e, m)
	}
}
