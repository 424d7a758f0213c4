// Command gencorpus writes a deterministic synthetic JSONL corpus: company
// profiles of mixed length with a few facts a question can ask about, in
// filler prose. It feeds the demo and the benchmark; the facts make answers
// checkable by eye once a real model is used.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
)

var (
	firstNames = []string{"Ada", "Grace", "Alan", "Marie", "Nikola", "Rosalind", "Emmy", "Srinivasa", "Hedy", "Katherine", "José", "Zoë", "Łukasz", "Søren", "Mei", "Aarav", "Chiamaka", "Björn", "Renée", "Hiroshi"}
	lastNames  = []string{"Lovelace", "Hopper", "Turing", "Curie", "Tesla", "Franklin", "Noether", "Ramanujan", "Lamarr", "Johnson", "Müller", "García", "Nowak", "Kierkegaard", "Wang", "Sharma", "Okafor", "Andersson", "Dubois", "Tanaka"}
	cities     = []string{"Lisbon", "Kraków", "São Paulo", "Reykjavík", "Nairobi", "Osaka", "Montréal", "Zürich", "Austin", "Chennai", "Tallinn", "Valparaíso", "Dublin", "Seoul", "Aarhus"}
	products   = []string{"solar inverters", "bicycle frames", "weather balloons", "tea blends", "medical sensors", "open-source compilers", "ceramic tiles", "satellite radios", "bookbinding tools", "water filters"}
	nouns      = []string{"market", "factory", "team", "customer", "report", "river", "harbor", "engine", "design", "season", "budget", "network", "village", "museum", "archive", "festival", "railway", "bridge", "garden", "laboratory"}
	verbs      = []string{"expanded", "reviewed", "described", "improved", "delayed", "financed", "celebrated", "documented", "measured", "replaced", "visited", "praised", "questioned", "supported", "rebuilt"}
	adjs       = []string{"small", "northern", "careful", "ambitious", "quiet", "early", "remarkable", "local", "modest", "international", "new", "old", "steady", "unusual", "public"}
	extras     = []string{"café", "naïve", "東京", "😀", "Ångström", "İstanbul", "ΟΔΟΣ", "straße", "ﬁnance", "https://example.org/a?b=1", "3.14159", "1,000,000"}
)

func main() {
	n := flag.Int("n", 300, "documents")
	minWords := flag.Int("min-words", 20, "shortest document in words")
	maxWords := flag.Int("max-words", 1500, "longest document in words")
	seed := flag.Uint64("seed", 1, "random seed")
	out := flag.String("out", "-", "output file (- for standard output)")
	flag.Parse()
	if err := write(*out, *n, *minWords, *maxWords, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "gencorpus:", err)
		os.Exit(1)
	}
}

func write(path string, n, minWords, maxWords int, seed uint64) error {
	f := os.Stdout
	if path != "-" {
		var err error
		if f, err = os.Create(path); err != nil {
			return err
		}
		defer f.Close()
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	for i := range n {
		words := minWords + int(float64(maxWords-minWords)*skewed(r))
		doc := struct {
			ID      string `json:"id"`
			Context string `json:"context"`
		}{fmt.Sprintf("doc-%05d", i), document(r, words)}
		if err := enc.Encode(doc); err != nil {
			return err
		}
	}
	return w.Flush()
}

// skewed draws in [0,1) with many short documents and a long tail, like
// real corpora.
func skewed(r *rand.Rand) float64 { x := r.Float64(); return x * x }

func pick(r *rand.Rand, s []string) string { return s[r.IntN(len(s))] }

func document(r *rand.Rand, words int) string {
	company := pick(r, lastNames) + " " + pick(r, []string{"Industries", "Labs", "& Sons", "Cooperative", "GmbH", "Works"})
	founder := pick(r, firstNames) + " " + pick(r, lastNames)
	facts := []string{
		fmt.Sprintf("%s was founded in %d by %s in %s.", company, 1850+r.IntN(170), founder, pick(r, cities)),
		fmt.Sprintf("The company makes %s and employs %d people.", pick(r, products), 5+r.IntN(20000)),
		fmt.Sprintf("Its headquarters moved to %s in %d.", pick(r, cities), 1900+r.IntN(120)),
	}
	var b strings.Builder
	count := 0
	// Facts go at distinct sentence positions spread over the document, so
	// some answers lie far beyond the first window.
	factAt := map[int]string{}
	sentences := max(len(facts), words/10)
	for _, f := range facts {
		for {
			at := r.IntN(sentences)
			if _, taken := factAt[at]; !taken {
				factAt[at] = f
				break
			}
		}
	}
	for s := 0; count < words; s++ {
		if f, ok := factAt[s]; ok {
			b.WriteString(f + " ")
			count += len(strings.Fields(f))
			continue
		}
		sent := filler(r)
		b.WriteString(sent + " ")
		count += len(strings.Fields(sent))
	}
	return strings.TrimSpace(b.String())
}

func filler(r *rand.Rand) string {
	s := fmt.Sprintf("The %s %s %s the %s %s", pick(r, adjs), pick(r, nouns), pick(r, verbs), pick(r, adjs), pick(r, nouns))
	if r.IntN(4) == 0 {
		s += " near " + pick(r, cities)
	}
	if r.IntN(10) == 0 {
		s += " (" + pick(r, extras) + ")"
	}
	return s + "."
}
