"""`choose` and `exclude`: the calls a calc cell declares a what-if scenario with (see
`bookkit.resolve.scenarios`). Apart from `scenarios.py` because the cell runner installs them in
every chapter's namespace (`cells.execute_cells`), and `scenarios.py` runs cells: one module
would make cells and scenarios import each other.
"""
from __future__ import annotations

import re
import sys

from bookkit.model import Choice, Scenario

NAME_RE = re.compile(r"^[a-z][a-z0-9-]*$")
KEY_RE = re.compile(r"^[a-z][a-z0-9_]*$")
#: Choice keys whose options are registry ids (labelled with the registry's display name).
REGISTRIES = {"model": "models", "accelerator": "hardware"}


class Declarations:
    """`choose` and `exclude`, put into a chapter's cell namespace.

    In the book's run `choose` returns the default and records the choice; in a variant run it
    returns the variant's value (`assignment`)."""

    def __init__(self, path: str, assignment: dict | None = None) -> None:
        self.path = path
        self.assignment = assignment or {}
        self.scenarios: dict[str, Scenario] = {}

    def install(self, namespace: dict) -> None:
        namespace["choose"] = self.choose
        namespace["exclude"] = self.exclude

    def _line(self) -> int:
        frame = sys._getframe(2)
        while frame is not None and frame.f_code.co_filename != self.path:
            frame = frame.f_back
        return frame.f_lineno if frame is not None else 0

    def choose(self, scenario: str, key: str, options, default=None):
        if not isinstance(scenario, str) or not NAME_RE.match(scenario):
            raise ValueError(f"scenario name {scenario!r}: use lower-case letters, digits and "
                             "`-` (it is the region's id without `wi-`)")
        if not isinstance(key, str) or not KEY_RE.match(key):
            raise ValueError(f"choice key {key!r}: use a lower-case word such as "
                             "model, accelerator, context, batch, precision")
        options = tuple(options)
        if not options or any(isinstance(o, bool) or not isinstance(o, (str, int, float))
                              for o in options):
            raise ValueError(f"choose({scenario!r}, {key!r}, …): options must be a non-empty "
                             "list of ids or numbers")
        if any(isinstance(o, str) and not re.match(r"^[A-Za-z0-9_.-]+$", o) for o in options):
            raise ValueError(f"choose({scenario!r}, {key!r}, …): an id option may hold letters, "
                             "digits, `.`, `_` and `-` only (it goes into the page's URL)")
        if len(set(options)) != len(options):
            raise ValueError(f"choose({scenario!r}, {key!r}, …): an option is listed twice")
        default = options[0] if default is None else default
        if default not in options:
            raise ValueError(f"choose({scenario!r}, {key!r}, …): default {default!r} is not "
                             "one of the options")
        sc = self.scenarios.setdefault(scenario, Scenario(scenario, self.path, self._line()))
        if key in sc.keys:
            raise ValueError(f"scenario {scenario!r} already has a choice {key!r}")
        sc.choices += (Choice(key, options, default, _labels(key, options), self._line()),)
        return self.assignment.get(scenario, {}).get(key, default)

    def exclude(self, scenario: str, **chosen) -> None:
        sc = self.scenarios.get(scenario)
        if sc is None:
            raise ValueError(f"exclude({scenario!r}, …) before any choose({scenario!r}, …)")
        for k, v in chosen.items():
            choice = next((c for c in sc.choices if c.key == k), None)
            if choice is None or v not in choice.options:
                raise ValueError(f"exclude({scenario!r}, {k}={v!r}): not a declared option")
        sc.excluded += (tuple(sorted(chosen.items())),)


def _labels(key: str, options: tuple) -> tuple:
    module = REGISTRIES.get(key)
    if module is None:
        return tuple(None for _ in options)
    import importlib
    registry = importlib.import_module(f"calculations.{module}")
    return tuple(registry.get(o).name for o in options)    # an unknown id fails with its hint
