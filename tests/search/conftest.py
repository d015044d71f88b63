"""Search-test fixtures live in search_helpers.py, importable by the tests by a unique name
(a second module called `conftest` would clash with tests/conftest.py)."""
from search_helpers import *  # noqa: F401,F403  (fixtures are registered from this namespace)
