"""bookkit: the book's build pipeline (load -> resolve -> render -> check)."""
import os as _os

# matplotlib's font list (fontlist-*.json) names font files by absolute path, its own bundled
# STIX and DejaVu fonts inside the virtualenv included. Kept per user, it is shared by every
# checkout: one made by a virtualenv since deleted lacked STIX, and every mathtext figure of
# another checkout then failed the tofu check ("STIXGeneral not found"). Each checkout keeps
# its own, under its .cache/ (a user's explicit MPLCONFIGDIR wins).
_os.environ.setdefault("MPLCONFIGDIR", _os.path.join(
    _os.path.dirname(_os.path.dirname(_os.path.abspath(__file__))), ".cache", "matplotlib"))
