package table

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// item is one item of a column selection.
type item struct {
	text   string // the item as written, trimmed
	name   string // a header name, or "" for an index or a range
	lo, hi int    // 1-based inclusive range; hi == 0 means to the last column
}

// parseColumns splits a column selection into items and checks what can
// be checked without the data. An empty selection gives no items.
func parseColumns(spec string) ([]item, error) {
	if strings.TrimSpace(spec) == "" {
		return nil, nil
	}
	parts := strings.Split(spec, ",")
	items := make([]item, 0, len(parts))
	for _, p := range parts {
		it := item{text: strings.TrimSpace(p)}
		if it.text == "" {
			return nil, fmt.Errorf("empty item in %s", quote(spec))
		}
		lo, hi, isRange := strings.Cut(it.text, "-")
		lo, hi = strings.TrimSpace(lo), strings.TrimSpace(hi)
		switch {
		case isDigits(it.text):
			n, err := index(it.text)
			if err != nil {
				return nil, fmt.Errorf("item %s: %w", quote(it.text), err)
			}
			it.lo, it.hi = n, n
		case isRange && isDigits(lo) && (hi == "" || isDigits(hi)):
			a, err := index(lo)
			if err != nil {
				return nil, fmt.Errorf("item %s: %w", quote(it.text), err)
			}
			it.lo = a
			if hi != "" {
				b, err := index(hi)
				if err != nil {
					return nil, fmt.Errorf("item %s: %w", quote(it.text), err)
				}
				if b < a {
					return nil, fmt.Errorf("item %s: the range is reversed", quote(it.text))
				}
				it.hi = b
			}
		default:
			it.name = it.text
		}
		items = append(items, it)
	}
	return items, nil
}

// isDigits reports whether s is a non-empty string of ASCII digits.
func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// maxIndex bounds column indices so that they cannot overflow.
const maxIndex = 1 << 30

// index parses a 1-based column index made of digits.
func index(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n > maxIndex {
		return 0, fmt.Errorf("column %s does not exist", s)
	}
	if n == 0 {
		return 0, errors.New("column 0 does not exist; columns are numbered from 1")
	}
	return n, nil
}

// hasNames reports whether any item is a header name.
func hasNames(items []item) bool {
	for _, it := range items {
		if it.name != "" {
			return true
		}
	}
	return false
}

// resolve turns items into 0-based source columns of a table width fields
// wide whose first record is on line first. header holds the header
// fields, or nil if there is no header. No items select all columns.
func resolve(items []item, width, first int, header []string) ([]int, error) {
	if len(items) == 0 {
		sel := make([]int, width)
		for j := range sel {
			sel[j] = j
		}
		return sel, nil
	}
	var sel []int
	chosen := make(map[int]string) // source column → item that chose it
	add := func(j int, it item) error {
		if prev, ok := chosen[j]; ok {
			if prev == it.text {
				return fmt.Errorf("item %s: column %d is selected twice", quote(it.text), j+1)
			}
			return fmt.Errorf("item %s: column %d is already selected by item %s", quote(it.text), j+1, quote(prev))
		}
		chosen[j] = it.text
		sel = append(sel, j)
		return nil
	}
	for _, it := range items {
		if it.name != "" {
			j, err := lookup(it, first, header)
			if err != nil {
				return nil, err
			}
			if err := add(j, it); err != nil {
				return nil, err
			}
			continue
		}
		hi := it.hi
		if hi == 0 {
			hi = width
		}
		for _, n := range []int{it.lo, hi} {
			if n > width {
				return nil, fmt.Errorf("item %s: column %d does not exist; line %d has %d fields", quote(it.text), n, first, width)
			}
		}
		for n := it.lo; n <= hi; n++ {
			if err := add(n-1, it); err != nil {
				return nil, err
			}
		}
	}
	return sel, nil
}

// lookup finds the 0-based column of the header named by it.
func lookup(it item, first int, header []string) (int, error) {
	if header == nil {
		return 0, fmt.Errorf("item %s: not a column number, and names need a header", quote(it.text))
	}
	found, similar := -1, -1
	for j, h := range header {
		if h == it.name {
			if found >= 0 {
				return 0, fmt.Errorf("item %s: the header (line %d) has columns %d and %d of that name", quote(it.text), first, found+1, j+1)
			}
			found = j
		} else if similar < 0 && strings.EqualFold(h, it.name) {
			similar = j
		}
	}
	if found >= 0 {
		return found, nil
	}
	if similar >= 0 {
		return 0, fmt.Errorf("item %s: no column of that name in the header (line %d); did you mean %s?", quote(it.text), first, quote(header[similar]))
	}
	return 0, fmt.Errorf("item %s: no column of that name in the header (line %d)", quote(it.text), first)
}
