"""Renderers that turn resolved book sources into a PDF (XeLaTeX) and an EPUB3."""
