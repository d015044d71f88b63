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

pdf: setup
	bash book/build_pdf.sh
	bash book-en/build_pdf.sh
	bash book-zh-tw/build_pdf.sh

epub: setup
	$(PY) book/build_epub.py --edition zh
	$(PY) book/build_epub.py --edition en
	$(PY) book/build_epub.py --edition zh-tw

release: site pdf epub
	$(PY) scripts/release.py

bench: setup
	$(PY) bench/run.py

clean:
	rm -rf build dist .cache
