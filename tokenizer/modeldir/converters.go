package modeldir

import (
	"slices"
	"strings"
)

// converter builds the tokenizer.json of one family of slow tokenizers
// from the folder's files; it returns the JSON and the files it read.
type converter struct {
	name  string // transformers' converter class
	build func(dir string, c *slowConfig) ([]byte, []string, error)
}

// converters maps a slow tokenizer class to its converter, as
// transformers' SLOW_TO_FAST_CONVERTERS does, for the classes qa-shard
// converts.
var converters = map[string]converter{
	"BertTokenizer":       {"BertConverter", convertBert},
	"DistilBertTokenizer": {"BertConverter", convertBert},
	"ElectraTokenizer":    {"BertConverter", convertBert},
	"RobertaTokenizer":    {"RobertaConverter", convertRoberta},
}

func convertedClasses() string {
	names := make([]string, 0, len(converters)+1)
	names = append(names, "BertJapaneseTokenizer")
	for n := range converters {
		names = append(names, n)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

func flags(content string, lstrip bool) addedToken {
	f := false
	return addedToken{Content: content, Lstrip: lstrip, Normalized: &f, Special: true}
}
