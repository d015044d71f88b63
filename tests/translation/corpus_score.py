"""Precision and recall of the translation number check over the real-world corpus.

The corpus (``tests/fixtures/translation/corpus/``) holds chapter pairs written for the tests in
the style of real translations, and ``manifest.json`` the faults seeded into each translation.
For each pair the check runs twice: on the clean translation (every finding is a false alarm)
and on the translation with all of its faults applied at once (a finding is a true positive
when it is the expected kind at the expected place, else a false alarm). Used by
``test_corpus.py`` (which asserts the thresholds) and by ``tests/conftest.py`` (which prints the
score at the end of every run that includes that test).
"""
from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bookkit.check.pair import Difference, check_pair  # noqa: E402

CORPUS = ROOT / "tests" / "fixtures" / "translation" / "corpus"
#: issue 29's pairs, written before the checker learnt paragraphs (revision skew, label lists,
#: alt text before "Figure N-M shows", restatements); scored as the command line reports them
WORKBENCH = ROOT / "tests" / "fixtures" / "translation" / "workbench"


@dataclass
class Score:
    true_positives: int = 0
    false_alarms: list[tuple[str, Difference]] = field(default_factory=list)
    caught: int = 0
    missed: list[tuple[str, str]] = field(default_factory=list)   # (pair, fault name)
    faults: int = 0
    pairs: int = 0

    @property
    def precision(self) -> float:
        found = self.true_positives + len(self.false_alarms)
        return self.true_positives / found if found else 1.0

    @property
    def recall(self) -> float:
        return self.caught / self.faults if self.faults else 1.0

    def summary(self) -> str:
        return (f"translation check on the real-world corpus ({self.pairs} chapter pairs, "
                f"{self.faults} seeded faults): precision {self.precision:.3f} "
                f"({self.true_positives} of {self.true_positives + len(self.false_alarms)} findings real), "
                f"recall {self.recall:.3f} ({self.caught} of {self.faults} faults found)")


def _line_of(text: str, needle: str, where: str) -> int:
    if text.count(needle) != 1:
        raise ValueError(f"{where}: {needle!r} occurs {text.count(needle)} times (must be once)")
    return text[:text.index(needle)].count("\n") + 1


def load_manifest(corpus: Path = CORPUS) -> dict:
    return json.loads((corpus / "manifest.json").read_text(encoding="utf-8"))


def _reported(findings: list[Difference], precision: bool) -> list[Difference]:
    """What the command line lists: differences of precision only with ``--precision``."""
    return [f for f in findings if precision or f.kind != "precision"]


def apply_faults(translation: str, faults: list[dict], where: str) -> tuple[str, list[tuple[dict, int]]]:
    """The translation with every fault applied, and each fault's expected line (translation
    line of the replacement, for kinds reported there)."""
    for fault in faults:
        _line_of(translation, fault["find"], f"{where}: fault {fault['name']!r}")
    # apply from the end so earlier positions stay valid
    ordered = sorted(faults, key=lambda f: translation.index(f["find"]), reverse=True)
    text = translation
    for fault in ordered:
        i = translation.index(fault["find"])
        text = text[:i] + fault["replace"] + text[i + len(fault["find"]):]
    # each replacement's position shifts by the length changes of the faults before it
    out = []
    for fault in faults:
        i = translation.index(fault["find"])
        shift = sum(len(g["replace"]) - len(g["find"]) for g in faults if translation.index(g["find"]) < i)
        out.append((fault, text[:i + shift].count("\n") + 1))
    return text, out


def score_corpus(corpus: Path = CORPUS, precision: bool = True) -> Score:
    """The score over ``corpus``; ``precision``: count differences of precision only as
    findings (as ``--precision`` does; the first corpus seeds them as faults)."""
    manifest = load_manifest(corpus)
    score = Score()
    for pair in manifest["pairs"]:
        score.pairs += 1
        name = pair["name"]
        original = (corpus / pair["original"]).read_text(encoding="utf-8")
        translation = (corpus / pair["translation"]).read_text(encoding="utf-8")
        score.false_alarms += [(f"{name} (clean)", f) for f in _reported(
            check_pair(original, translation, pair["lang"]), precision)]
        faulty, expected = apply_faults(translation, pair["faults"], name)
        findings = _reported(check_pair(original, faulty, pair["lang"]), precision)
        unused = list(findings)
        for fault, tline in expected:
            score.faults += 1
            oline = _line_of(original, fault["original"], f"{name}: {fault['name']!r}") \
                if "original" in fault else None
            hit = next((f for f in unused if f.kind == fault["kind"] and (
                f.original_line == oline if oline is not None else f.translation_line == tline)), None)
            if hit is None:
                score.missed.append((name, fault["name"]))
                continue
            unused.remove(hit)
            score.caught += 1
            score.true_positives += 1
        score.false_alarms += [(name, f) for f in unused]
    return score


if __name__ == "__main__":
    which = sys.argv[1] if len(sys.argv) > 1 else "corpus"
    s = score_corpus(WORKBENCH, precision="--precision" in sys.argv) if which == "workbench" \
        else score_corpus()
    print(s.summary())
    for pair, f in s.false_alarms:
        print(f"  false alarm in {pair}: {f.kind} t{f.translation_line} o{f.original_line}: {f.message}")
    for pair, name in s.missed:
        print(f"  missed in {pair}: {name}")
