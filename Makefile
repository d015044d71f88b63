# Two set-up commands: `make serve` and `make test`. Both install what is missing first.
PY := .venv/bin/python
PORT ?= 8000
SETUP_STAMP := .venv/.setup-done

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

# One PDF and one EPUB per edition of manuscripts/book.yml (`python -m bookkit editions`).
pdf: setup
	@set -e; for e in $$($(PY) -m bookkit editions); do \
	  echo "PDF: $$e"; $(PY) -m bookkit.render.pandoc pdf --edition $$e; done

epub: setup
	@set -e; for e in $$($(PY) -m bookkit editions); do \
	  echo "EPUB: $$e"; $(PY) book/build_epub.py --edition $$e; done

release: site pdf epub
	$(PY) scripts/release.py

bench: setup
	$(PY) bench/run.py

clean:
	rm -rf build dist .cache
