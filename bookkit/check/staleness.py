"""Which sections of a translation are stale, i.e. whose original changed since it was synced.

Each translated chapter keeps a sync record beside it, ``<edition>/.sync/<chapter-file>.json``:
``{"sec-id": "hash", ...}``, where the hash is the first 16 hex digits of the sha256 of the
original section's normalised text (see :func:`section_hashes`). ``scripts/sync_translation.py``
writes the record; :func:`stale_sections` compares it with the original as it is now.
"""

from __future__ import annotations

import hashlib
import json
import unicodedata
from pathlib import Path

from bookkit.check.pair import parse_document

HASH_LEN = 16


def normalise_section_text(lines: list[str]) -> str:
    """NFC, trailing whitespace stripped, runs of blank lines collapsed, outer blank lines dropped.

    So re-wrapping whitespace at line ends or adding a blank line does not make a section stale;
    any change of words, numbers or markup does.
    """
    out: list[str] = []
    for line in lines:
        line = unicodedata.normalize("NFC", line.rstrip())
        if not line and (not out or not out[-1]):
            continue
        out.append(line)
    while out and not out[-1]:
        out.pop()
    return "\n".join(out)


def section_hashes(original_text: str) -> dict[str, str]:
    """``{section id: hash}`` for every section of an original chapter, in document order.

    Sections are split at every heading (a subsection is its own section); a heading without a
    ``{#sec-…}`` id gets the positional key ``_hN`` (N = its 1-based heading index in the file);
    text before the first heading is ``_preamble``.
    """
    # The language only picks the number reader, which the hash does not use: sections and their
    # lines are the same for an original in any language.
    doc = parse_document(original_text, "zh-Hans")
    result: dict[str, str] = {}
    for sec in doc.sections:
        digest = hashlib.sha256(normalise_section_text(sec.lines).encode("utf-8")).hexdigest()
        result[sec.id] = digest[:HASH_LEN]
    return result


def section_titles(original_text: str) -> dict[str, str]:
    """``{section id: heading text}`` of an original chapter (ids as :func:`section_hashes`
    keys them), so a report names ``"屋顶线模型"`` rather than its positional key ``_h3``."""
    from bookkit.source.markdown import HEADING_ATTRS_RE
    from bookkit.source.typed_numbers import HEADING_NUMBER_RE
    doc = parse_document(original_text, "zh-Hans")
    titles = {}
    for sec in doc.sections:
        title = HEADING_ATTRS_RE.sub("", sec.title).strip()     # `{#sec-x}`, `{-}`
        typed = HEADING_NUMBER_RE.match(title)                  # `第 3 章`, `3.1`
        titles[sec.id] = title[typed.end():] if typed else title
    return {k: v for k, v in titles.items() if v}


def section_name(sid: str, titles: dict[str, str]) -> str:
    """How a report names a section: its heading in quotes, with the id when the author gave
    one (`"显存预算" (sec-kv)`); the positional `_hN` keys are not shown; the text before the
    first heading is "(before the first heading)"."""
    title = titles.get(sid)
    if sid == "_preamble":
        return "(before the first heading)"
    if title is None:
        return sid
    return f"“{title}”" + ("" if sid.startswith("_h") else f" ({sid})")


def stale_sections(original_text: str, sync_record: dict[str, str] | None) -> list[tuple[str, str]]:
    """Sections whose original changed since the translation was synced.

    Returns ``(section_id, reason)`` in document order; reason is ``"never synced"`` or
    ``"original changed"``. Ids in the record that no longer exist in the original are reported
    last with reason ``"section removed from original"``.
    """
    record = sync_record or {}
    out: list[tuple[str, str]] = []
    current = section_hashes(original_text)
    for sid, digest in current.items():
        if sid not in record:
            out.append((sid, "never synced"))
        elif record[sid] != digest:
            out.append((sid, "original changed"))
    for sid in record:
        if sid not in current:
            out.append((sid, "section removed from original"))
    return out


def sync_record_path(edition_dir: str | Path, chapter_file: str) -> Path:
    """``<edition>/.sync/<chapter-file>.json``."""
    return Path(edition_dir) / ".sync" / f"{Path(chapter_file).name}.json"


def load_sync_record(path: str | Path) -> dict[str, str]:
    """Read a sync record; a missing file is an empty record."""
    p = Path(path)
    if not p.exists():
        return {}
    data = json.loads(p.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in data.items()):
        raise ValueError(f"{p}: a sync record must be a JSON object of section id -> hash")
    return data


def mark_synced(original_text: str, record: dict[str, str], sections: list[str] | None = None) -> dict[str, str]:
    """A new record with ``sections`` (all when ``None``) set to the original's current hashes.

    Ids no longer in the original are dropped when syncing everything. Raises ``KeyError`` for
    a requested id the original does not have.
    """
    current = section_hashes(original_text)
    if sections is None:
        return dict(current)
    new = dict(record)
    for sid in sections:
        if sid not in current:
            raise KeyError(sid)
        new[sid] = current[sid]
    return {k: new[k] for k in [*current, *[k for k in new if k not in current]] if k in new}


def save_sync_record(path: str | Path, record: dict[str, str]) -> None:
    """Write a record as stable, pretty JSON (keys in the given order)."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps(record, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
