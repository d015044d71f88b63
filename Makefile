# Two set-up commands: `make serve` and `make test`. Both install what is missing first.
PY := .venv/bin/python
PORT ?= 8000
SETUP_STAMP := .venv/.setup-done

.PHONY: setup serve site check test pdf epub release bench clean \
	pdf-zh pdf-en pdf-zh-tw epub-zh epub-en epub-zh-tw

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

# The three editions' PDFs (and EPUBs) are built side by side: each is mostly one
# single-threaded XeLaTeX (or Pandoc) process, so on two cores three at once take about two
# thirds of the time of one after another. A PDF and the EPUB of one edition share
# build/pandoc/<edition>/, so the EPUBs start after the PDFs.
pdf: setup
	@$(MAKE) --no-print-directory -j3 pdf-zh pdf-en pdf-zh-tw

epub: setup
	@$(MAKE) --no-print-directory -j3 epub-zh epub-en epub-zh-tw

pdf-zh:
	bash book/build_pdf.sh
pdf-en:
	bash book-en/build_pdf.sh
pdf-zh-tw:
	bash book-zh-tw/build_pdf.sh

epub-zh epub-en epub-zh-tw:
	$(PY) book/build_epub.py --edition $(@:epub-%=%)

release: site
	@$(MAKE) --no-print-directory pdf
	@$(MAKE) --no-print-directory epub
	$(PY) scripts/release.py

bench: setup
	$(PY) bench/run.py

clean:
	rm -rf build dist .cache
