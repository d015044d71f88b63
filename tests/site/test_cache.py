"""The execution cache: keyed on code, imported local modules, data files read and versions."""
import json
from pathlib import Path

import pytest

from bookkit.build import BuildOptions, Builder
from bookkit.model import BuildError

PROBE = """
```calc
from calculations import models, formulas
probe_kv = formulas.kv_bytes_per_token(models.get("{model}"))
```
"""


@pytest.fixture
def book(book_copy):
    """Chapters 11 and 12 each read one model config that no other chapter needs alone."""
    for file, model in (("11-cost-energy.md", "qwen3-32b"), ("12-outlook.md", "mixtral-8x7b")):
        path = book_copy / "manuscripts" / file
        path.write_text(path.read_text() + PROBE.format(model=model))
    return book_copy


def build(book: Path, cache: Path, tmp: Path, **kw) -> Builder:
    builder = Builder(BuildOptions(root=book, out=tmp / "site", quiet=True, cache_dir=cache, **kw))
    builder.build()
    return builder


def test_warm_build_executes_nothing(book, warm_cache, tmp_path):
    first = build(book, warm_cache, tmp_path)
    assert first.executed_cells == [11, 12]          # only the chapters this test changed
    second = build(book, warm_cache, tmp_path)
    assert second.executed_cells == [] and second.drawn_figures == []


def test_model_config_edit_reruns_exactly_its_dependents(book, warm_cache, tmp_path):
    first = build(book, warm_cache, tmp_path)
    config = "calculations/data/configs/Qwen--Qwen3-32B.json"
    readers = sorted(n for n, d in first.cell_deps.items() if config in d)
    figure_readers = sorted(n for n, d in first.figure_deps.items() if config in d)
    assert 11 in readers and 12 not in readers and len(readers) < 13
    path = book / config
    data = json.loads(path.read_text())
    data["num_hidden_layers"] = 80
    path.write_text(json.dumps(data, indent=2))
    again = build(book, warm_cache, tmp_path)
    assert again.executed_cells == readers
    assert sorted(again.drawn_figures) == figure_readers
    assert len(figure_readers) < len(first.figure_deps)


def test_data_and_module_edits_invalidate(book, warm_cache, tmp_path):
    build(book, warm_cache, tmp_path)
    hardware = book / "calculations" / "data" / "hardware.json"
    hardware.write_text(hardware.read_text() + "\n")    # same data, new bytes: a new hash
    again = build(book, warm_cache, tmp_path)
    hardware_readers = sorted(n for n, d in again.figure_deps.items()
                              if "calculations/data/hardware.json" in d)
    assert hardware_readers and sorted(again.drawn_figures) == hardware_readers
    formulas = book / "calculations" / "formulas.py"
    formulas.write_text(formulas.read_text() + "\n# touched\n")
    rerun = build(book, warm_cache, tmp_path).executed_cells
    assert 11 in rerun and 12 in rerun


def test_cell_code_edit_reruns_that_chapter_only(book, warm_cache, tmp_path):
    build(book, warm_cache, tmp_path)
    path = book / "manuscripts" / "08-training.md"
    path.write_text(path.read_text().replace("tokens_per_second = 1000",
                                             "tokens_per_second = 2000"))
    assert build(book, warm_cache, tmp_path).executed_cells == [8]
    assert "172,800,000" in (tmp_path / "site" / "en" / "training.html").read_text()


def test_cell_time_limit(book, warm_cache, tmp_path):
    path = book / "manuscripts" / "09-quantization.md"
    path.write_text(path.read_text() + "\n```calc\nimport time\ntime.sleep(30)\n```\n")
    with pytest.raises(BuildError) as err:
        build(book, warm_cache, tmp_path, cell_timeout=1.0)
    assert "09-quantization.md" in err.value.render() and "stopped after 1 s" in err.value.render()
