"""TeX math as the plain text a reader sees: ``\\min(P,\\ I \\cdot B)`` -> ``min(P, I · B)``.

Used wherever a formula must appear as text (search documents and their snippets, alt text,
page descriptions), so a reader never sees TeX source there.

Why by hand: the formulas are rendered by KaTeX in a separate Node process whose output
(HTML + MathML) arrives after the search documents are built. The maintained Python converter,
pylatexenc 2.10 (`LatexNodes2Text`), was tried on the book's formulas: it drops a fraction's
grouping (``\\frac{W}{\\text{HBM bandwidth}}`` -> ``W/HBM bandwidth``), spaces operators unevenly
(``I ·B``, ``α+ β``), keeps ``^`` and ``_`` for digits and loses unknown commands' names. The
book's math uses a small vocabulary (fractions, scripts, ``\\text``, Greek letters, operators
and delimiters); anything unknown keeps its command name without the backslash, so no formula
loses its words.
"""

from __future__ import annotations

import re

__all__ = ["tex_to_text"]

_SYMBOLS = {
    "cdot": "·", "times": "×", "div": "÷", "pm": "±", "mp": "∓", "approx": "≈", "sim": "∼",
    "simeq": "≃", "equiv": "≡", "neq": "≠", "ne": "≠", "le": "≤", "leq": "≤", "ge": "≥",
    "geq": "≥", "ll": "≪", "gg": "≫", "lesssim": "≲", "gtrsim": "≳", "propto": "∝", "in": "∈",
    "to": "→", "rightarrow": "→", "leftarrow": "←", "Rightarrow": "⇒", "Leftarrow": "⇐",
    "mapsto": "↦", "infty": "∞", "sum": "∑", "prod": "∏", "int": "∫", "partial": "∂",
    "nabla": "∇", "cdots": "⋯", "ldots": "…", "dots": "…", "odot": "⊙", "otimes": "⊗",
    "oplus": "⊕", "top": "⊤", "ell": "ℓ", "lceil": "⌈", "rceil": "⌉", "lfloor": "⌊",
    "rfloor": "⌋", "langle": "⟨", "rangle": "⟩", "vert": "|", "mid": "|", "lvert": "|",
    "rvert": "|", "|": "‖", "%": "%", "$": "$", "#": "#", "&": "&", "_": "_", "{": "{", "}": "}",
    "circ": "∘", "degree": "°", "prime": "′", "forall": "∀", "exists": "∃", "cup": "∪",
    "cap": "∩", "subset": "⊂", "setminus": "∖", "star": "⋆", "ast": "∗", "bullet": "•",
}
_GREEK = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ϵ", "varepsilon": "ε",
    "zeta": "ζ", "eta": "η", "theta": "θ", "vartheta": "ϑ", "iota": "ι", "kappa": "κ",
    "lambda": "λ", "mu": "μ", "nu": "ν", "xi": "ξ", "pi": "π", "rho": "ρ", "sigma": "σ",
    "tau": "τ", "upsilon": "υ", "phi": "ϕ", "varphi": "φ", "chi": "χ", "psi": "ψ", "omega": "ω",
    "Gamma": "Γ", "Delta": "Δ", "Theta": "Θ", "Lambda": "Λ", "Xi": "Ξ", "Pi": "Π", "Sigma": "Σ",
    "Upsilon": "Υ", "Phi": "Φ", "Psi": "Ψ", "Omega": "Ω",
}
#: spacing commands -> a space (or nothing)
_SPACES = {",": " ", ":": " ", ";": " ", " ": " ", "quad": " ", "qquad": " ", "enspace": " ",
           "thinspace": " ", "!": "", "displaystyle": "", "textstyle": "", "scriptstyle": "",
           "left": "", "right": "", "big": "", "Big": "", "bigg": "", "Bigg": "", "bigl": "",
           "bigr": "", "Bigl": "", "Bigr": "", "biggl": "", "biggr": "", "middle": "",
           "limits": "", "nolimits": "", "nonumber": "", "notag": ""}
#: commands whose one argument is shown as is
_MATH_ARG = {"mathrm", "mathit", "mathbf", "mathsf", "mathtt", "mathcal", "mathbb", "mathfrak",
             "boldsymbol", "bm", "operatorname", "pmb", "underline", "overbrace", "underbrace",
             "substack"}
#: text-mode commands: their argument keeps its spaces
_TEXT_ARG = {"text", "textrm", "textit", "textbf", "texttt", "textsf", "textnormal", "mbox",
             "hbox", "emph"}
#: accents -> a combining character after the argument
_ACCENTS = {"bar": "\u0304", "overline": "\u0305", "hat": "\u0302", "widehat": "\u0302",
            "tilde": "\u0303", "widetilde": "\u0303", "dot": "\u0307", "ddot": "\u0308",
            "vec": "\u20d7", "check": "\u030c"}
_FRACS = {"frac", "dfrac", "tfrac", "cfrac"}
_SUP = str.maketrans("0123456789+-−=()ni", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻⁼⁽⁾ⁿⁱ")
_SUB = str.maketrans("0123456789+-−=()", "₀₁₂₃₄₅₆₇₈₉₊₋₋₌₍₎")
#: binary operators and relations: spaced as a typesetter spaces them
_SPACED = set("=+<>") | {"−", "×", "·", "÷", "±", "≈", "≠", "≤", "≥", "≪", "≫", "≲", "≳", "∝",
                         "→", "←", "⇒", "⇐", "∈", "≡", "∼", "≃", "↦"}
_TOKEN = re.compile(r"\\([A-Za-z]+|.)|([{}^_&~])|(\s+)|(.)", re.S)


def _tokens(tex: str) -> list[str]:
    out = []
    for m in _TOKEN.finditer(tex):
        if m.group(1) is not None:
            out.append("\\" + m.group(1))
        elif m.group(3) is not None:
            out.append(" ")
        else:
            out.append(m.group(2) or m.group(4))
    return out


class _Reader:
    def __init__(self, tex: str) -> None:
        self.toks = _tokens(tex)
        self.i = 0

    def group(self) -> str:
        """The next argument (a braced group or one token) as text."""
        while self.i < len(self.toks) and self.toks[self.i] == " ":
            self.i += 1
        if self.i >= len(self.toks):
            return ""
        if self.toks[self.i] == "{":
            self.i += 1
            return self.until("}")
        return self.one()

    def raw_group(self) -> str:
        """A braced argument taken literally, spaces kept (``\\text{per token}``)."""
        while self.i < len(self.toks) and self.toks[self.i] == " ":
            self.i += 1
        if self.i >= len(self.toks) or self.toks[self.i] != "{":
            return self.one()
        depth, parts = 0, []
        while self.i < len(self.toks):
            tok = self.toks[self.i]
            self.i += 1
            if tok == "{":
                depth += 1
                if depth == 1:
                    continue
            elif tok == "}":
                depth -= 1
                if depth == 0:
                    break
            parts.append(_SYMBOLS.get(tok[1:], tok[1:]) if tok.startswith("\\") else tok)
        return "".join(p for p in parts if p not in "{}")

    def until(self, end: str | None) -> str:
        parts: list[str] = []
        while self.i < len(self.toks):
            if end is not None and self.toks[self.i] == end:
                self.i += 1
                break
            parts.append(self.one())
        return _join(parts)

    def one(self) -> str:
        tok = self.toks[self.i]
        self.i += 1
        if tok == "{":
            return self.until("}")
        if tok == "}":
            return ""
        if tok == " ":
            return ""               # TeX ignores spaces in math
        if tok == "~":
            return " "
        if tok == "&":
            return " "
        if tok in ("^", "_"):
            arg = self.group()
            table = _SUP if tok == "^" else _SUB
            plain = arg.replace(" ", "")
            if plain and plain.translate(table) != plain and all(
                    c != t for c, t in zip(plain, plain.translate(table))):
                return plain.translate(table)
            if tok == "^" and arg in ("⊤", "′", "∗", "∘", "*", "†"):
                return arg
            plain = arg.replace("\x00", "")
            return tok + (plain if re.fullmatch(r"[\w.′]+", plain) else "(" + plain + ")")
        if not tok.startswith("\\"):
            return "−" if tok == "-" else tok
        name = tok[1:]
        if name == "\\":
            return "; "
        if name in _SPACES:
            return _SPACES[name]
        if name in _SYMBOLS:
            return _SYMBOLS[name]
        if name in _GREEK:
            return _GREEK[name]
        if name in _TEXT_ARG:
            return "\x00" + self.raw_group() + "\x00"    # \x00: spaces here are the author's
        if name in _MATH_ARG:
            return self.group()
        if name in _FRACS:
            num, den = self.group(), self.group()
            return f"{_wrap(num)}/{_wrap(den)}"
        if name == "sqrt":
            if self.i < len(self.toks) and self.toks[self.i] == "[":
                self.i += 1
                index = []
                while self.i < len(self.toks) and self.toks[self.i] != "]":
                    index.append(self.one())
                self.i += 1
                return f"{''.join(index).translate(_SUP)}√{_wrap(self.group())}"
            return "√" + _wrap(self.group())
        if name in _ACCENTS:
            arg = self.group()
            return arg + _ACCENTS[name] if len(arg) == 1 else arg
        if name in ("begin", "end"):
            self.raw_group()
            return " "
        if name in ("binom", "tbinom", "dbinom"):
            n, k = self.group(), self.group()
            return f"C({n}, {k})"
        return name                 # \min, \max, \log, \exp ... and anything unknown


def _wrap(text: str) -> str:
    """A fraction's part: parenthesised unless it is one number, name or symbol."""
    return text if re.fullmatch(r"[\w.′]+|\([^()]*\)", text.replace("\x00", "")) else f"({text})"


def _join(parts: list[str]) -> str:
    out = ""
    for part in parts:
        if not part:
            continue
        if part in _SPACED:
            # binary after an operand, unary (a sign) at the start or after an operator
            prev = out.rstrip()
            if prev and (prev[-1].isalnum() or prev[-1] in ")]}|⌉⌋′\x00" or ord(prev[-1]) > 0x2000
                         and prev[-1] not in _SPACED and prev[-1] not in "(["):
                out = prev + " " + part + " "
            else:
                out += part
            continue
        if part == ",":
            out += ", "
            continue
        out += part
    return out


def tex_to_text(tex: str) -> str:
    """Readable plain text of a TeX formula (inline or display)."""
    text = _Reader(tex).until(None).replace("\x00", "")
    text = re.sub(r"\s+", " ", text)
    text = re.sub(r"\s+([,;)\]])", r"\1", text)
    text = re.sub(r"([(\[])\s+", r"\1", text)
    return text.strip()
