# MeCab for Japanese BERT (BertJapaneseTokenizer) folders: the tests load
# libmecab and the IPAdic and UniDic system dictionaries (Debian's
# libmecab2, mecab-ipadic-utf8 and unidic-mecab: `sudo make deps`; without
# them those tests skip, naming them); the goldens come from
# tools/jagolden/golden.py over MeCab's own Python binding.
#
#   make ja-goldens  rewrites tokenizer/modeldir/testdata/japanese from the
#                    Japanese man pages and Debian policy (manpages-ja,
#                    debian-policy-ja) with python3-mecab and the real
#                    bert-base-japanese-v3 vocabulary (../shared;
#                    `sudo make deps deps-dev` installs the packages)

JA_GOLDEN_PACKAGES := $(DEPS_TEST) python3-mecab manpages-ja debian-policy-ja
JA_PYTHON ?= /usr/bin/python3
JA_GOLDENS := tokenizer/modeldir/testdata/japanese
JA_VOCAB ?= ../shared/real-tokenizers/bert-base-japanese-v3/vocab.txt

# The dictionary folders are the packages' folders under a mecab/dic that
# hold the compiled sys.dic.
dicdir_of = $$(for d in $$(dpkg -L $(1) | grep '/mecab/dic/$(2)$$'); do [ -f $$d/sys.dic ] && echo $$d && break; done)
.PHONY: ja-goldens
ja-goldens:
	$(call require_packages,$(JA_GOLDEN_PACKAGES),deps deps-dev)
	$(JA_PYTHON) tools/jagolden/golden.py --vocab $(JA_VOCAB) \
		--ipadic $(call dicdir_of,mecab-ipadic-utf8,ipadic-utf8) --unidic $(call dicdir_of,unidic-mecab,unidic) \
		--out $(JA_GOLDENS) \
		$$(dpkg -L manpages-ja debian-policy-ja | grep -E '/man/ja/.*\.gz$$|/_sources/.*\.txt$$')
