"""What a figure script's `draw(fig, t)` receives as `t`: the edition's words for the figure
(from `<edition>/figures.yml`), and the edition's number formatting for the numbers it draws.

`t["key"]` is a word, as before. `t.num(value, "si unit=GB/s digits=0", name="nic_bw")` formats
a number with the same formatter, spec language and edition conventions as a bound number in
the prose (`{{ nic_bw | si unit=GB/s digits=0 }}`), so a diagram and the sentence beside it
print the same number the same way; the number, its spec and name are recorded (`t.bound`)
for the figure's provenance. `t.lang` is the edition's language.
"""
from __future__ import annotations


class FigureText(dict):
    def __init__(self, words: dict, lang: str, number_lang: str) -> None:
        super().__init__(words)
        self.lang = lang
        self.number_lang = number_lang
        self.bound: list[dict] = []
        #: the chapter's cell values the script named in `INPUTS` (a what-if variant's when
        #: the figure is drawn for one): the diagram draws the numbers the prose states
        self.inputs: dict = {}

    def num(self, value, spec: str = "", name: str = "", expr: str = "") -> str:
        from ..locale.numbers import format_value, parse_spec
        text = format_value(value, parse_spec(spec), self.number_lang)
        entry = {"text": text, "name": name, "spec": spec, "value": repr(value), "expr": expr}
        if entry not in self.bound:     # `draw` and `describe` format the same numbers
            self.bound.append(entry)
        return text

    def __missing__(self, key):
        raise KeyError(f"no figure string `{key}` in this figure's table of figures.yml "
                       f"(add it to manuscripts/figures.yml and each edition's figures.yml)")
