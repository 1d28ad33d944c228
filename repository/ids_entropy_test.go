package repository

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"testing/cryptotest"
	"testing/synctest"
	"time"
)

// The tests below hold ids to what makes them unguessable: their random part comes from
// crypto/rand and from nothing an observer could know or share, such as the time a process or a
// Repo started. The bug they guard against is the ULID library's default entropy, math/rand
// seeded with the start time: whoever knows roughly when the server started can replay it.

// idTimestamp is the creation time every id of these tests is minted for, so that ids can only
// differ in their random part.
var idTimestamp = time.Date(2026, 4, 1, 9, 30, 0, 0, time.UTC)

// mintIDs builds a Repo the way New does (without a DynamoDB client, which minting never uses)
// and mints n ids for idTimestamp.
func mintIDs(t testing.TB, n int) []string {
	t.Helper()
	r, err := newRepo(nil, Config{Table: "ids", CursorSecret: bytes.Repeat([]byte("k"), 32), Clock: func() time.Time { return idTimestamp }})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, n)
	for i := range out {
		if out[i], _, err = r.NewEntityID(); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// randomParts are the ids' last 16 characters: their 80 random bits.
func randomParts(ids []string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = id[10:]
	}
	return out
}

// requireDisjoint fails if any random part occurs in both sequences.
func requireDisjoint(t *testing.T, what string, a, b []string) {
	t.Helper()
	for _, x := range randomParts(a) {
		if slices.Contains(randomParts(b), x) {
			t.Fatalf("%s share the random part %s:\n%v\n%v", what, x, a, b)
		}
	}
}

// TestIDsDrawTheirRandomnessFromCryptoRand replays crypto/rand (testing/cryptotest): Repos built
// while it yields the same stream mint the same ids, and a different stream gives different ids.
// So everything random in an id comes from crypto/rand; a source that mixed in math/rand, the
// clock or a process-wide sequence would mint different ids from the same stream.
func TestIDsDrawTheirRandomnessFromCryptoRand(t *testing.T) {
	const n = 16
	cryptotest.SetGlobalRandom(t, 1)
	first := mintIDs(t, n)
	cryptotest.SetGlobalRandom(t, 1)
	again := mintIDs(t, n)
	if !slices.Equal(first, again) {
		t.Fatalf("the same crypto/rand stream minted different ids: something else feeds them\n%v\n%v", first, again)
	}
	cryptotest.SetGlobalRandom(t, 2)
	requireDisjoint(t, "ids minted from different crypto/rand streams", first, mintIDs(t, n))
}

// TestIDSourcesCreatedInTheSameInstantDiffer builds two Repos at the very same instant: inside a
// synctest bubble the clock stands still, so a source seeded from the time would start both
// sequences alike.
func TestIDSourcesCreatedInTheSameInstantDiffer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		a, b := mintIDs(t, 32), mintIDs(t, 32)
		if !time.Now().Equal(start) {
			t.Fatal("the clock moved inside the bubble")
		}
		requireDisjoint(t, "two Repos created in the same instant", a, b)
	})
}

// childIDsEnv marks the child processes of TestIDSequencesDifferBetweenProcesses.
const childIDsEnv = "SINGLETABLE_IDS_CHILD"

// TestIDSequencesDifferBetweenProcesses starts this test binary twice, back to back (the two
// processes start within the same millisecond or two), and each child prints 32 ids minted for
// the same timestamp by a Repo built inside a synctest bubble, where both children read the same
// clock. The random parts must differ: nothing two processes started together share (the clock,
// a fixed seed, a deterministic process-wide stream) may decide them.
//
// Against the library's default entropy this test would pass: that source is seeded from the
// nanosecond clock when the package loads, outside any bubble, and two processes never load it
// in the same nanosecond. TestIDsDrawTheirRandomnessFromCryptoRand is the one that fails there.
func TestIDSequencesDifferBetweenProcesses(t *testing.T) {
	if os.Getenv(childIDsEnv) == "1" {
		synctest.Test(t, func(t *testing.T) {
			for _, id := range mintIDs(t, 32) {
				os.Stdout.WriteString("id " + id + "\n")
			}
		})
		return
	}
	if testing.Short() {
		t.Skip("starts two processes")
	}
	var cmds [2]*exec.Cmd
	var outs [2]bytes.Buffer
	for i := range cmds {
		cmds[i] = exec.Command(os.Args[0], "-test.run=^TestIDSequencesDifferBetweenProcesses$", "-test.count=1")
		cmds[i].Env = append(os.Environ(), childIDsEnv+"=1")
		cmds[i].Stdout = &outs[i]
	}
	for _, c := range cmds {
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
	}
	var seqs [2][]string
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("child %d: %v\n%s", i, err, outs[i].String())
		}
		sc := bufio.NewScanner(&outs[i])
		for sc.Scan() {
			if id, ok := strings.CutPrefix(sc.Text(), "id "); ok {
				seqs[i] = append(seqs[i], id)
			}
		}
		if len(seqs[i]) != 32 {
			t.Fatalf("child %d printed %d ids:\n%s", i, len(seqs[i]), outs[i].String())
		}
		for j, id := range seqs[i] {
			if !ValidID(id) || !idTime(id).Equal(idTimestamp) || (j > 0 && id <= seqs[i][j-1]) {
				t.Fatalf("child %d: id %d %q is not a valid increasing id of %v", i, j, id, idTimestamp)
			}
		}
	}
	requireDisjoint(t, "two processes started together", seqs[0], seqs[1])
}
