// The oracle behind go119_sort_slice.json: Go's own sort.Slice over the cases
// on standard input, ordered as upstream's MoreImportantPod orders victims.
//
//	apt-get install -y golang-go    # Debian 12: Go 1.19.8
//	go run oracle.go < cases.json > sorted.json
//
// Go 1.22 and later differ from 1.19 only in the xorshift shifts of
// breakPatterns (13, 7, 17 instead of 13, 17, 5); the test sets 1.19's.
package main

import (
	"encoding/json"
	"os"
	"sort"
)

// Each element: [priority, start] with start < 0 meaning "no start time" (compares as now = 1e9)
type Case struct {
	Elems [][2]int `json:"elems"`
}

func main() {
	var cases []Case
	if err := json.NewDecoder(os.Stdin).Decode(&cases); err != nil {
		panic(err)
	}
	out := make([][]int, len(cases))
	const now = 1000000000
	for ci, c := range cases {
		idx := make([]int, len(c.Elems))
		for i := range idx {
			idx[i] = i
		}
		e := c.Elems
		sort.Slice(idx, func(i, j int) bool {
			a, b := e[idx[i]], e[idx[j]]
			if a[0] != b[0] {
				return a[0] > b[0]
			}
			ta, tb := a[1], b[1]
			if ta < 0 {
				if tb < 0 {
					return true // p1's now is read before p2's
				}
				return now < tb
			}
			if tb < 0 {
				return ta <= now
			}
			return ta < tb
		})
		out[ci] = idx
	}
	json.NewEncoder(os.Stdout).Encode(out)
}
