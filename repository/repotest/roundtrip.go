package repotest

import (
	"reflect"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/repository"
)

// CheckRoundTrip fails t unless item, v as its definition encoded it (err its error), carries
// v's keys and decodes, by its type attribute, into what was encoded: each domain's test of its
// item types calls it for one value of each.
func CheckRoundTrip(t testing.TB, v repository.Entity, item map[string]types.AttributeValue, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%T: %v", v, err)
	}
	k := v.Key()
	if pk, sk := repository.StringAttr(item, repository.AttrPK), repository.StringAttr(item, repository.AttrSK); pk != k.PK || sk != k.SK {
		t.Errorf("%T: item keys %q/%q, want %q/%q", v, pk, sk, k.PK, k.SK)
	}
	got, err := repository.DecodeEntity(item)
	if err != nil {
		t.Fatalf("%T: %v", v, err)
	}
	if !reflect.DeepEqual(got, v) {
		t.Errorf("round trip of %T: got %+v, want %+v", v, got, v)
	}
}

// With is a NewRepo modifier that sets what cfg sets (its non-zero fields) on the test table's
// configuration: a test that needs one setting (a clock, an SDK middleware) names only it.
func With(cfg repository.Config) func(*repository.Config) {
	return func(c *repository.Config) {
		to, from := reflect.ValueOf(c).Elem(), reflect.ValueOf(cfg)
		for i := range from.NumField() {
			if !from.Field(i).IsZero() {
				to.Field(i).Set(from.Field(i))
			}
		}
	}
}
