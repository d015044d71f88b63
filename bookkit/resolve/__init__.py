"""Resolve stage: calculation cells, bound values, figures, numbering and cross-references."""
