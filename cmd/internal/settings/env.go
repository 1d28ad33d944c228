package settings

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Problems collects what is wrong with a configuration, each entry naming its variable (and
// flag), so that one start reports every mistake at once instead of one per attempt.
type Problems []string

// Add records a problem; its signature is the one the validators take.
func (p *Problems) Add(format string, a ...any) {
	*p = append(*p, fmt.Sprintf(format, a...))
}

// Err is nil without problems, or one error listing them all.
func (p Problems) Err() error {
	if len(p) == 0 {
		return nil
	}
	return fmt.Errorf("invalid configuration:\n  %s", strings.Join(p, "\n  "))
}

// Env reads typed environment variables through Getenv: a malformed value is reported through
// Bad, naming the variable, and the default stands in for it so that every problem is listed at
// once.
type Env struct {
	Getenv func(string) string
	Bad    func(format string, a ...any)
}

// Get is the variable's text, empty when it is unset.
func (e Env) Get(name string) string { return e.Getenv(name) }

// String is the variable's text, or def when it is unset or empty.
func (e Env) String(name, def string) string {
	if v := e.Getenv(name); v != "" {
		return v
	}
	return def
}

func (e Env) Int(name string, def int) int {
	v := e.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		e.Bad("%s=%q is not a whole number", name, v)
		return def
	}
	return n
}

func (e Env) Float(name string, def float64) float64 {
	v := e.Getenv(name)
	if v == "" {
		return def
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		e.Bad("%s=%q is not a number", name, v)
		return def
	}
	return f
}

func (e Env) Bool(name string, def bool) bool {
	v := e.Getenv(name)
	if v == "" {
		return def
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		e.Bad("%s=%q is not true or false", name, v)
		return def
	}
	return b
}

func (e Env) Duration(name string, def time.Duration) time.Duration {
	v := e.Getenv(name)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		e.Bad("%s=%q is not a duration such as 500us or 2ms", name, v)
		return def
	}
	return d
}
