# MeCab for Japanese BERT (BertJapaneseTokenizer) folders: the tests load
# libmecab and the IPAdic and UniDic system dictionaries; the goldens come
# from tools/jagolden/golden.py over MeCab's own Python binding.
#
#   make mecab       installs Debian's libmecab2, mecab-ipadic-utf8 and
#                    unidic-mecab where one is missing (CI runs as root);
#                    make test depends on it
#   make ja-goldens  rewrites tokenizer/modeldir/testdata/japanese from the
#                    Japanese man pages and Debian policy (manpages-ja,
#                    debian-policy-ja) with python3-mecab and the real
#                    bert-base-japanese-v3 vocabulary (../shared)

MECAB_PACKAGES := libmecab2 mecab-ipadic-utf8 unidic-mecab
JA_GOLDEN_PACKAGES := $(MECAB_PACKAGES) python3-mecab manpages-ja debian-policy-ja
JA_PYTHON ?= /usr/bin/python3
JA_GOLDENS := tokenizer/modeldir/testdata/japanese
JA_VOCAB ?= ../shared/real-tokenizers/bert-base-japanese-v3/vocab.txt

# Installs the Debian packages named in $(1) that are not installed.
define apt_ensure
	@missing=$$(for p in $(1); do dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		command -v apt-get >/dev/null || { echo "install MeCab and its dictionaries ($$missing on Debian) to run these tests" >&2; exit 1; }; \
		echo "installing $$missing"; apt-get update -qq && apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi
endef

.PHONY: mecab
mecab:
	$(call apt_ensure,$(MECAB_PACKAGES))

# The dictionary folders are the packages' folders under a mecab/dic that
# hold the compiled sys.dic.
dicdir_of = $$(for d in $$(dpkg -L $(1) | grep '/mecab/dic/$(2)$$'); do [ -f $$d/sys.dic ] && echo $$d && break; done)
.PHONY: ja-goldens
ja-goldens:
	$(call apt_ensure,$(JA_GOLDEN_PACKAGES))
	$(JA_PYTHON) tools/jagolden/golden.py --vocab $(JA_VOCAB) \
		--ipadic $(call dicdir_of,mecab-ipadic-utf8,ipadic-utf8) --unidic $(call dicdir_of,unidic-mecab,unidic) \
		--out $(JA_GOLDENS) \
		$$(dpkg -L manpages-ja debian-policy-ja | grep -E '/man/ja/.*\.gz$$|/_sources/.*\.txt$$')
