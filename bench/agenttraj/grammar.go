package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"unicode/utf8"
)

// The server turns a turn's action schema into a grammar (Ollama through
// llama.cpp's json-schema-to-grammar): an object's required properties
// come first in the schema's order, then the optional ones in the
// schema's order, each at most once, and no others; enums, bounds on
// strings, arrays and numbers hold. allows checks a completion against
// the schema the loop sent with the turn, by those rules, so that every
// written completion is one a constrained model can write. It reads the
// keywords kgforge's action schemas use (anyOf, type, enum, required,
// properties, items, minLength, maxLength, maxItems, minimum, maximum);
// a schema with another keyword is refused rather than half-checked.

// jnode is a JSON value with its object keys in order.
type jnode struct {
	kind  byte // o(bject), a(rray), s(tring), n(umber), b(oolean), z (null)
	keys  []string
	vals  []jnode
	str   string
	num   json.Number
	boolv bool
}

func parseJSON(raw []byte) (jnode, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	n, err := readNode(dec)
	if err != nil {
		return jnode{}, err
	}
	if dec.More() {
		return jnode{}, fmt.Errorf("more than one JSON value")
	}
	return n, nil
}

func readNode(dec *json.Decoder) (jnode, error) {
	tok, err := dec.Token()
	if err != nil {
		return jnode{}, err
	}
	switch v := tok.(type) {
	case json.Delim:
		n := jnode{kind: 'a'}
		if v == '{' {
			n.kind = 'o'
		}
		for dec.More() {
			if n.kind == 'o' {
				k, err := dec.Token()
				if err != nil {
					return jnode{}, err
				}
				n.keys = append(n.keys, k.(string)) // object keys are strings
			}
			c, err := readNode(dec)
			if err != nil {
				return jnode{}, err
			}
			n.vals = append(n.vals, c)
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return jnode{}, err
		}
		return n, nil
	case string:
		return jnode{kind: 's', str: v}, nil
	case json.Number:
		return jnode{kind: 'n', num: v}, nil
	case bool:
		return jnode{kind: 'b', boolv: v}, nil
	}
	return jnode{kind: 'z'}, nil
}

func (n jnode) get(key string) (jnode, bool) {
	i := slices.Index(n.keys, key)
	if i < 0 {
		return jnode{}, false
	}
	return n.vals[i], true
}

// allows reports whether the grammar of schema lets a model write
// completion; the error says where it does not.
func allows(schema json.RawMessage, completion string) error {
	s, err := parseJSON(schema)
	if err != nil {
		return fmt.Errorf("read schema: %w", err)
	}
	v, err := parseJSON([]byte(completion))
	if err != nil {
		return fmt.Errorf("read completion: %w", err)
	}
	return check(s, v, "$")
}

var schemaKeywords = []string{"anyOf", "type", "enum", "required", "properties", "items", "minLength", "maxLength", "maxItems", "minimum", "maximum", "description"}

func check(s, v jnode, path string) error {
	for _, k := range s.keys {
		if !slices.Contains(schemaKeywords, k) {
			return fmt.Errorf("%s: schema keyword %q is not checked", path, k)
		}
	}
	if branches, ok := s.get("anyOf"); ok {
		var errs []string
		for _, b := range branches.vals {
			err := check(b, v, path)
			if err == nil {
				return nil
			}
			errs = append(errs, err.Error())
		}
		return fmt.Errorf("%s: no branch of anyOf allows it (%d branches; first: %s)", path, len(errs), first(errs))
	}
	if enum, ok := s.get("enum"); ok {
		for _, e := range enum.vals {
			if e.kind == v.kind && e.str == v.str && e.num == v.num && e.boolv == v.boolv && e.kind != 'o' && e.kind != 'a' {
				return nil
			}
		}
		return fmt.Errorf("%s: %q is not in the enum", path, v.str)
	}
	typ, _ := s.get("type")
	switch typ.str {
	case "object":
		return checkObject(s, v, path)
	case "array":
		if v.kind != 'a' {
			return fmt.Errorf("%s: not an array", path)
		}
		if m, ok := s.get("maxItems"); ok && int64(len(v.vals)) > intOf(m) {
			return fmt.Errorf("%s: %d items, at most %s", path, len(v.vals), m.num)
		}
		items, _ := s.get("items")
		for i, it := range v.vals {
			if err := check(items, it, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case "string":
		if v.kind != 's' {
			return fmt.Errorf("%s: not a string", path)
		}
		n := int64(utf8.RuneCountInString(v.str))
		if m, ok := s.get("maxLength"); ok && n > intOf(m) {
			return fmt.Errorf("%s: %d characters, at most %s", path, n, m.num)
		}
		if m, ok := s.get("minLength"); ok && n < intOf(m) {
			return fmt.Errorf("%s: %d characters, at least %s", path, n, m.num)
		}
	case "integer", "number":
		if v.kind != 'n' {
			return fmt.Errorf("%s: not a number", path)
		}
		x, err := v.num.Float64()
		if err != nil || typ.str == "integer" && bytes.ContainsAny([]byte(v.num), ".eE") {
			return fmt.Errorf("%s: %s is not an %s", path, v.num, typ.str)
		}
		if m, ok := s.get("minimum"); ok {
			if lo, _ := m.num.Float64(); x < lo {
				return fmt.Errorf("%s: %s under the minimum %s", path, v.num, m.num)
			}
		}
		if m, ok := s.get("maximum"); ok {
			if hi, _ := m.num.Float64(); x > hi {
				return fmt.Errorf("%s: %s over the maximum %s", path, v.num, m.num)
			}
		}
	case "boolean":
		if v.kind != 'b' {
			return fmt.Errorf("%s: not a boolean", path)
		}
	default:
		return fmt.Errorf("%s: schema type %q is not checked", path, typ.str)
	}
	return nil
}

// checkObject checks the properties in the grammar's order: the required
// ones first, in the schema's order, then optional ones in the schema's
// order.
func checkObject(s, v jnode, path string) error {
	if v.kind != 'o' {
		return fmt.Errorf("%s: not an object", path)
	}
	props, _ := s.get("properties")
	req, _ := s.get("required")
	var required []string
	for _, r := range req.vals {
		required = append(required, r.str)
	}
	var order []string
	for _, k := range props.keys {
		if slices.Contains(required, k) {
			order = append(order, k)
		}
	}
	for _, k := range props.keys {
		if !slices.Contains(required, k) {
			order = append(order, k)
		}
	}
	at := 0
	for i, k := range v.keys {
		j := slices.Index(order[at:], k)
		if j < 0 {
			return fmt.Errorf("%s: property %q is not allowed here (the grammar's order is %v)", path, k, order)
		}
		for _, skipped := range order[at : at+j] {
			if slices.Contains(required, skipped) {
				return fmt.Errorf("%s: required property %q missing before %q", path, skipped, k)
			}
		}
		at += j + 1
		ps, _ := props.get(k)
		if err := check(ps, v.vals[i], path+"."+k); err != nil {
			return err
		}
	}
	for _, r := range order[at:] {
		if slices.Contains(required, r) {
			return fmt.Errorf("%s: required property %q missing", path, r)
		}
	}
	return nil
}

func intOf(n jnode) int64 {
	i, _ := n.num.Int64()
	return i
}

func first(errs []string) string {
	if len(errs) == 0 {
		return ""
	}
	return errs[0]
}
