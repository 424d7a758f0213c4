package main

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"unicode/utf8"
)

// The Japanese profiles (-lang ja): the same facts and distractors as the
// English ones, in Japanese prose with no spaces between words. Every
// answer is followed by a particle or a counter (に, で, を, へ, 年, 人),
// which MeCab splits off with either of its common dictionaries, so that a
// tokenizer that splits words with MeCab starts and ends a token at each
// answer's edges.
var (
	jaLastNames  = []string{"田中", "佐藤", "鈴木", "高橋", "伊藤", "渡辺", "山本", "中村", "小林", "加藤", "吉田", "山田", "佐々木", "山口", "松本", "井上", "木村", "林", "清水", "森"}
	jaFirstNames = []string{"太郎", "花子", "一郎", "美咲", "健太", "陽子", "翔", "結衣", "大輔", "直美", "誠", "恵子", "拓也", "由美", "浩", "明美", "修", "愛", "学", "真理子"}
	jaSuffixes   = []string{"工業", "製作所", "商事", "電機", "産業", "技研"}
	jaCities     = []string{"東京", "大阪", "名古屋", "札幌", "福岡", "仙台", "広島", "神戸", "京都", "横浜", "金沢", "那覇", "新潟", "熊本", "静岡"}
	jaProducts   = []string{"太陽光インバーター", "自転車フレーム", "気象観測気球", "日本茶", "医療用センサー", "オープンソースのコンパイラ", "陶磁器タイル", "衛星ラジオ", "製本道具", "浄水器"}
	jaNouns      = []string{"市場", "工場", "チーム", "顧客", "報告書", "川", "港", "エンジン", "設計", "季節", "予算", "ネットワーク", "村", "博物館", "資料館", "祭り", "鉄道", "橋", "庭園", "研究所"}
	jaVerbs      = []string{"拡大した", "見直した", "説明した", "改善した", "遅らせた", "支援した", "祝った", "記録した", "測定した", "交換した", "訪れた", "称賛した", "疑問視した", "支持した", "再建した"}
	jaAdjs       = []string{"小さな", "北部の", "慎重な", "野心的な", "静かな", "初期の", "注目すべき", "地元の", "控えめな", "国際的な", "新しい", "古い", "安定した", "珍しい", "公共の"}
	// jaExtras are the hostile strings of Japanese text: half- and
	// full-width forms and other characters NFKC changes, emoji, Latin and
	// digits among the Japanese.
	jaExtras = []string{"café", "ｶﾞｲﾄﾞﾌﾞｯｸ", "ＡＢＣ１２３", "①", "㍉", "😀", "ﬁnance", "Ångström", "https://example.org/a?b=1", "3.14159", "1,000,000", "〜"}
)

// jaWords is how many words a Japanese sentence counts for -min-words and
// -max-words: one per two characters, about as many tokens per word as
// the English profiles have, so that the same flags give documents of
// about the same length in tokens.
func jaWords(s string) int { return max(1, utf8.RuneCountInString(s)/2) }

// documentJa is document in Japanese: a company profile of about the given
// number of words (jaWords) and its facts.
func documentJa(r *rand.Rand, words int) (string, []fact) {
	company := pick(r, jaLastNames) + pick(r, jaSuffixes)
	founder := pick(r, jaLastNames) + pick(r, jaFirstNames)
	year := fmt.Sprint(1850 + r.IntN(170))
	city := pick(r, jaCities)
	product := pick(r, jaProducts)
	staff := fmt.Sprint(5 + r.IntN(20000))
	hq := pick(r, jaCities)
	moved := fmt.Sprint(1900 + r.IntN(120))
	facts := []*sentence{
		new(sentence).text(company+"は、").answer("year", year).text("年に").answer("founder", founder).
			text("によって").answer("city", city).text("で設立された。"),
		new(sentence).text("同社は").answer("products", product).text("を製造しており、従業員は").
			answer("employees", staff).text("人である。"),
		new(sentence).text("本社は"+moved+"年に").answer("hq", hq).text("へ移転した。"),
	}

	// As in English: facts at distinct sentence positions over the
	// document. A filler sentence counts for about ten words; fifteen
	// keeps every fact within the document.
	factAt := map[int]*sentence{}
	sentences := max(len(facts), words/15)
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
	for s := 0; count < words; s++ {
		text := ""
		if f, ok := factAt[s]; ok {
			for _, a := range f.facts {
				found = append(found, fact{kind: a.kind, answer: a.answer, start: runes + a.start})
			}
			text = f.b.String()
		} else {
			text = fillerJa(r)
		}
		b.WriteString(text)
		runes += utf8.RuneCountInString(text)
		count += jaWords(text)
	}
	return b.String(), found
}

func fillerJa(r *rand.Rand) string {
	adj1, noun1, verb, adj2, noun2 := pick(r, jaAdjs), pick(r, jaNouns), pick(r, jaVerbs), pick(r, jaAdjs), pick(r, jaNouns)
	s := fmt.Sprintf("%s%sは%s%sを%s", adj1, noun1, adj2, noun2, verb)
	if r.IntN(4) == 0 {
		s = pick(r, jaCities) + "の近くで、" + s
	}
	if r.IntN(10) == 0 {
		s += "（" + pick(r, jaExtras) + "）"
	}
	return s + "。"
}
