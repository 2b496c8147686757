package conformance

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/certbench/certbench/certstore"
)

// answerKinds are the JSON names of the AnswerKinds, by value.
var answerKinds = []string{"certificate", "default", "generated", "error", "none"}

// String names the kind as JSON writes it.
func (k AnswerKind) String() string {
	if int(k) >= 0 && int(k) < len(answerKinds) {
		return answerKinds[k]
	}
	return fmt.Sprintf("AnswerKind(%d)", int(k))
}

// answerJSON is an Answer in JSON; the error travels as its message and
// class, so that a decoded one still matches the sentinels with errors.Is.
type answerJSON struct {
	Kind      string `json:"kind"`
	Config    int    `json:"config,omitempty"`
	Index     int    `json:"index,omitempty"`
	Store     string `json:"store,omitempty"`
	Error     string `json:"error,omitempty"`
	ErrorKind string `json:"error_kind,omitempty"`
}

// MarshalJSON writes a as answerJSON.
func (a Answer) MarshalJSON() ([]byte, error) {
	j := answerJSON{Kind: a.Kind.String(), Config: a.Config, Index: a.Index, Store: a.Store}
	if a.Err != nil {
		j.Error, j.ErrorKind = a.Err.Error(), errClass(a.Err)
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (a *Answer) UnmarshalJSON(data []byte) error {
	var j answerJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	k := slices.Index(answerKinds, j.Kind)
	if k < 0 {
		return fmt.Errorf("conformance: unknown answer kind %q", j.Kind)
	}
	*a = Answer{Kind: AnswerKind(k), Config: j.Config, Index: j.Index, Store: j.Store}
	if j.Error != "" || j.ErrorKind != "" {
		a.Err = &decodedError{msg: j.Error, class: j.ErrorKind}
	}
	return nil
}

// decodedError is an error read back from JSON.
type decodedError struct{ msg, class string }

func (e *decodedError) Error() string { return e.msg }

// Is matches the certstore sentinel of the error's class.
func (e *decodedError) Is(target error) bool {
	switch e.class {
	case "unknown store":
		return target == certstore.ErrUnknownStore
	case "no certificate":
		return target == certstore.ErrNoCertificate
	}
	return false
}
