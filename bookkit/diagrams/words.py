"""What a figure script's `draw(fig, t)` receives as `t`: the edition's words for the figure
(from `<edition>/figures.yml`), and the edition's number formatting for the numbers it draws.

`t["key"]` is a word, as before. `t.num(value, "si unit=GB/s digits=0", name="nic_bw")` formats
a number with the same formatter, spec language and edition conventions as a bound number in
the prose (`{{ nic_bw | si unit=GB/s digits=0 }}`), so a diagram and the sentence beside it
print the same number the same way; the number, its spec and name are recorded (`t.bound`)
for the figure's provenance. `t.lang` is the edition's language.
"""
from __future__ import annotations

import string


class _PlainFields(string.Formatter):
    """`str.format` limited to plain fields: `{}`, `{0}`, `{name}`, each with a format spec.

    A translation's figures.yml is contributed text, and `str.format` on it would otherwise
    read attributes and items of the arguments (`{0.__class__.__init__.__globals__[os]}`),
    a way into the build machine's memory and environment. Written by hand because the standard
    library's Formatter has no such switch; `string.Template` would change every figure
    string's syntax."""

    def get_field(self, field_name, args, kwargs):
        if "." in field_name or "[" in field_name:
            raise ValueError(f"figure string field {{{field_name}}}: only plain fields such as "
                             f"{{}}, {{0}} or {{name}} are allowed in figures.yml")
        return super().get_field(field_name, args, kwargs)


_PLAIN = _PlainFields()


class Word(str):
    """A figure string: a `str` whose `format` takes plain fields only (see `_PlainFields`)."""

    def format(self, *args, **kwargs) -> str:
        return _PLAIN.vformat(str(self), args, kwargs)

    def format_map(self, mapping) -> str:
        return _PLAIN.vformat(str(self), (), mapping)


def _words(value):
    if isinstance(value, str):
        return Word(value)
    if isinstance(value, dict):
        return {k: _words(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_words(v) for v in value]
    return value


class FigureText(dict):
    def __init__(self, words: dict, lang: str, number_lang: str) -> None:
        super().__init__(_words(words))
        self.lang = lang
        self.number_lang = number_lang
        self.bound: list[dict] = []
        #: the chapter's cell values the script named in `INPUTS` (a what-if variant's when
        #: the figure is drawn for one): the diagram draws the numbers the prose states
        self.inputs: dict = {}

    def num(self, value, spec: str = "", name: str = "", expr: str = "") -> str:
        from bookkit.locale.numbers import format_value, parse_spec
        text = format_value(value, parse_spec(spec), self.number_lang)
        entry = {"text": text, "name": name, "spec": spec, "value": repr(value), "expr": expr}
        if entry not in self.bound:     # `draw` and `describe` format the same numbers
            self.bound.append(entry)
        return text

    def __missing__(self, key):
        raise KeyError(f"no figure string `{key}` in this figure's table of figures.yml "
                       f"(add it to manuscripts/figures.yml and each edition's figures.yml)")
