package main

import (
	"context"
	"testing"
	"time"
)

// TestRunSendsEveryRequestThroughTheDispatch checks the simulation's
// bookkeeping (not its timing): every request is answered, the endpoints'
// calls add up, and the ideal is the work over the slots.
func TestRunSendsEveryRequestThroughTheDispatch(t *testing.T) {
	o := options{
		slots: 2, perSlot: 3, promptPerTok: time.Microsecond, completionPerTok: 10 * time.Microsecond,
		promptLo: 10, promptH: 20, complLo: 5, complHi: 10, seed: 1,
	}
	r, err := run(context.Background(), o, 3, true)
	if err != nil {
		t.Fatal(err)
	}
	if r.Requests != 18 || r.MinCalls < 1 || r.MaxCalls > 18 || r.IdealS <= 0 || r.WallS <= 0 || !r.Simulation {
		t.Errorf("row %+v: want 18 requests over 3 endpoints and an ideal and wall time", r)
	}
	var work time.Duration
	for _, j := range jobs(o, 18) {
		work += o.delay(j)
	}
	// Endpoints 0 and 2 at speed 1, endpoint 1 at half speed: 2+1+2 slot-equivalents.
	if want := work.Seconds() / 5; r.IdealS < want*0.999 || r.IdealS > want*1.001 {
		t.Errorf("ideal %v s, want %v s", r.IdealS, want)
	}
	if r.GreedyS < r.IdealS {
		t.Errorf("greedy schedule %v s shorter than the ideal %v s", r.GreedyS, r.IdealS)
	}
}
