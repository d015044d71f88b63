# Two set-up commands: `make serve` and `make test`. Both install what is missing first.
PY := .venv/bin/python
PORT ?= 8000
SETUP_STAMP := .venv/.setup-done

# The editions of manuscripts/book.yml (zh en zh-tw ...); read when a recipe uses it, after setup.
EDITIONS = $(shell $(PY) -m bookkit editions)

.PHONY: setup serve site check test pdf epub release bench clean

setup:
	@bash scripts/setup.sh

serve: setup
	$(PY) scripts/build_site.py --serve --port $(PORT)

site: setup
	$(PY) scripts/build_site.py

check: site
	$(PY) scripts/check_site.py

test: setup
	$(PY) -m pytest -q -n 2 --dist loadfile tests

# Every edition's PDF (and EPUB) is built side by side (pdf-<id>, epub-<id> for one): each is
# mostly one single-threaded XeLaTeX (or Pandoc) process, so on two cores three at once take
# about two thirds of the time of one after another. A PDF and the EPUB of one edition share
# build/pandoc/<edition>/, so the EPUBs start after the PDFs.
pdf: setup
	@$(MAKE) --no-print-directory -j3 $(addprefix pdf-,$(EDITIONS))

epub: setup
	@$(MAKE) --no-print-directory -j3 $(addprefix epub-,$(EDITIONS))

pdf-%:
	$(PY) -m bookkit pdf --edition $*

epub-%:
	$(PY) book/build_epub.py --edition $*

# -o setup: `site` has run it; the sub-makes must not run it again (a scratch copy of the book,
# as `make bench` makes, links the installed tools and has no requirements.txt).
release: site
	@$(MAKE) --no-print-directory -o setup pdf
	@$(MAKE) --no-print-directory -o setup epub
	$(PY) scripts/release.py

bench: setup
	$(PY) bench/run.py

clean:
	rm -rf build dist .cache
