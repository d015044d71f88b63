"""Check stage: the built site (`links`), the translations (`numbers`, `terminology`, `script`,
`staleness`), all registered in `registry.CHECKS` and reported as `bookkit.model.Finding`."""
