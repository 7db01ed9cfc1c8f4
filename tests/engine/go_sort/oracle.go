// The oracle behind go119_sort_slice.json: Go's own sort.Slice over the cases
// on standard input, ordered as upstream's MoreImportantPod orders victims;
// it checks that sort.Sort over a sort.Interface leaves them alike.
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
	for ci, c := range cases {
		idx := make([]int, len(c.Elems))
		for i := range idx {
			idx[i] = i
		}
		e := c.Elems
		sort.Slice(idx, func(i, j int) bool { return less(e[idx[i]], e[idx[j]]) })
		// sort.Sort over a sort.Interface (VolumeBinding's byPVCSize) is the
		// same pdqsort: it must leave every element where sort.Slice did
		byIface := byLess{elems: e, idx: make([]int, len(e))}
		for i := range byIface.idx {
			byIface.idx[i] = i
		}
		sort.Sort(byIface)
		for i := range idx {
			if idx[i] != byIface.idx[i] {
				panic("sort.Sort and sort.Slice differ")
			}
		}
		out[ci] = idx
	}
	json.NewEncoder(os.Stdout).Encode(out)
}

const now = 1000000000

func less(a, b [2]int) bool {
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
}

type byLess struct {
	elems [][2]int
	idx   []int
}

func (s byLess) Len() int           { return len(s.idx) }
func (s byLess) Swap(i, j int)      { s.idx[i], s.idx[j] = s.idx[j], s.idx[i] }
func (s byLess) Less(i, j int) bool { return less(s.elems[s.idx[i]], s.elems[s.idx[j]]) }
