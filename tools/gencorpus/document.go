package main

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"unicode/utf8"
)

var (
	firstNames = []string{"Ada", "Grace", "Alan", "Marie", "Nikola", "Rosalind", "Emmy", "Srinivasa", "Hedy", "Katherine", "José", "Zoë", "Łukasz", "Søren", "Mei", "Aarav", "Chiamaka", "Björn", "Renée", "Hiroshi"}
	lastNames  = []string{"Lovelace", "Hopper", "Turing", "Curie", "Tesla", "Franklin", "Noether", "Ramanujan", "Lamarr", "Johnson", "Müller", "García", "Nowak", "Kierkegaard", "Wang", "Sharma", "Okafor", "Andersson", "Dubois", "Tanaka"}
	suffixes   = []string{"Industries", "Labs", "& Sons", "Cooperative", "GmbH", "Works"}
	cities     = []string{"Lisbon", "Kraków", "São Paulo", "Reykjavík", "Nairobi", "Osaka", "Montréal", "Zürich", "Austin", "Chennai", "Tallinn", "Valparaíso", "Dublin", "Seoul", "Aarhus"}
	products   = []string{"solar inverters", "bicycle frames", "weather balloons", "tea blends", "medical sensors", "open-source compilers", "ceramic tiles", "satellite radios", "bookbinding tools", "water filters"}
	nouns      = []string{"market", "factory", "team", "customer", "report", "river", "harbor", "engine", "design", "season", "budget", "network", "village", "museum", "archive", "festival", "railway", "bridge", "garden", "laboratory"}
	verbs      = []string{"expanded", "reviewed", "described", "improved", "delayed", "financed", "celebrated", "documented", "measured", "replaced", "visited", "praised", "questioned", "supported", "rebuilt"}
	adjs       = []string{"small", "northern", "careful", "ambitious", "quiet", "early", "remarkable", "local", "modest", "international", "new", "old", "steady", "unusual", "public"}
	extras     = []string{"café", "naïve", "東京", "😀", "Ångström", "İstanbul", "ΟΔΟΣ", "straße", "ﬁnance", "https://example.org/a?b=1", "3.14159", "1,000,000"}
)

// fact is one answer a document holds: its kind (a question's key), its
// text and where it starts, in code points of the document.
type fact struct {
	kind, answer string
	start        int
}

// sentence builds one fact sentence and remembers where its answers lie.
type sentence struct {
	b     strings.Builder
	facts []fact
}

func (s *sentence) text(t string) *sentence { s.b.WriteString(t); return s }

func (s *sentence) answer(kind, a string) *sentence {
	s.facts = append(s.facts, fact{kind: kind, answer: a, start: utf8.RuneCountInString(s.b.String())})
	s.b.WriteString(a)
	return s
}

// skewed draws in [0,1) with many short documents and a long tail, like
// real corpora.
func skewed(r *rand.Rand) float64 { x := r.Float64(); return x * x }

func pick(r *rand.Rand, s []string) string { return s[r.IntN(len(s))] }

// document writes a company profile of about the given number of words and
// returns it with its facts. The random draws are those of the first
// version of this generator, so a seed gives the same corpus as before.
func document(r *rand.Rand, words int) (string, []fact) {
	company := pick(r, lastNames) + " " + pick(r, suffixes)
	founder := pick(r, firstNames) + " " + pick(r, lastNames)
	year := fmt.Sprint(1850 + r.IntN(170))
	city := pick(r, cities)
	product := pick(r, products)
	staff := fmt.Sprint(5 + r.IntN(20000))
	hq := pick(r, cities)
	moved := fmt.Sprint(1900 + r.IntN(120))
	facts := []*sentence{
		new(sentence).text(company+" was founded in ").answer("year", year).text(" by ").answer("founder", founder).
			text(" in ").answer("city", city).text("."),
		new(sentence).text("The company makes ").answer("products", product).text(" and employs ").
			answer("employees", staff).text(" people."),
		new(sentence).text("Its headquarters moved to ").answer("hq", hq).text(" in " + moved + "."),
	}

	// Facts go at distinct sentence positions spread over the document, so
	// some answers lie far beyond the first window.
	factAt := map[int]*sentence{}
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
	var b strings.Builder
	var found []fact
	runes, count := 0, 0
	write := func(s string) {
		if b.Len() > 0 {
			b.WriteByte(' ')
			runes++
		}
		b.WriteString(s)
		runes += utf8.RuneCountInString(s)
		count += len(strings.Fields(s))
	}
	for s := 0; count < words; s++ {
		if f, ok := factAt[s]; ok {
			base := runes
			if b.Len() > 0 {
				base++ // the space write puts first
			}
			for _, a := range f.facts {
				found = append(found, fact{kind: a.kind, answer: a.answer, start: base + a.start})
			}
			write(f.b.String())
			continue
		}
		write(filler(r))
	}
	return b.String(), found
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
