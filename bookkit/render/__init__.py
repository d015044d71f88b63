"""Render stage: turn the resolved book into outputs — the website's pages (`html`, `site`,
`math`), its search indexes (`search`, `cjk`) and the Pandoc sources, PDF and EPUB (`pandoc`,
`fonts`). Renderers read `bookkit.model` types only, never the resolve stage's modules."""
