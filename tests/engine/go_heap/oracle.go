// The oracle behind go119_heap.json: Go's own container/heap over the score
// lists on standard input, ordered as upstream's nodeScoreHeap orders nodes
// without extenders (a higher total first; every Randomizer is 0). For each
// list it records the order heap.Pop gives after heap.Init, each element's
// index in the list.
//
//	apt-get install -y golang-go    # Debian 12: Go 1.19.8
//	go run oracle.go < cases.json > popped.json
package main

import (
	"container/heap"
	"encoding/json"
	"os"
)

type entry struct {
	index int
	total int64
}

type scoreHeap []entry

func (h scoreHeap) Len() int            { return len(h) }
func (h scoreHeap) Less(i, j int) bool  { return h[i].total > h[j].total }
func (h scoreHeap) Swap(i, j int)       { h[i], h[j] = h[j], h[i] }
func (h *scoreHeap) Push(x interface{}) { *h = append(*h, x.(entry)) }
func (h *scoreHeap) Pop() interface{} {
	old := *h
	n := len(old)
	x := old[n-1]
	*h = old[0 : n-1]
	return x
}

func main() {
	var cases [][]int64
	if err := json.NewDecoder(os.Stdin).Decode(&cases); err != nil {
		panic(err)
	}
	out := make([][]int, len(cases))
	for ci, totals := range cases {
		h := make(scoreHeap, len(totals))
		for i, t := range totals {
			h[i] = entry{i, t}
		}
		heap.Init(&h)
		popped := make([]int, 0, len(totals))
		for h.Len() > 0 {
			popped = append(popped, heap.Pop(&h).(entry).index)
		}
		out[ci] = popped
	}
	json.NewEncoder(os.Stdout).Encode(out)
}
