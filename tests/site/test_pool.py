"""`bookkit.resolve.workers.run_pool`: long-lived workers handed one item at a time (the figures)."""
import os
import time

from bookkit.resolve.workers import JobResult, KeptWorkers, run_pool


def _pid(tag: str) -> JobResult:
    return JobResult(ok=True, value=(tag, os.getpid(), time.monotonic()))


def _misbehave(how: str) -> JobResult:
    if how == "sleep":
        time.sleep(30)
    if how == "die":
        os._exit(3)
    if how == "raise":
        raise ValueError("bad figure")
    return JobResult(ok=True, value=os.getpid())


def _children() -> set[int]:
    me = str(os.getpid())
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    fields = fh.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[1] == me and fields[0] != "Z":
                found.add(int(entry))
    return found


def test_every_item_once_and_a_process_keeps_to_its_group():
    items = [(f"{g}{i}", (g,)) for g in "abc" for i in range(6)]
    before = _children()
    results = run_pool(items, _pid, workers=2, group=lambda args: args[0])
    assert sorted(results) == sorted(name for name, _ in items)
    assert all(r.ok for r in results.values())
    served: dict[int, list[str]] = {}
    for group, pid, _at in sorted((r.value for r in results.values()), key=lambda v: v[2]):
        served.setdefault(pid, []).append(group)
    assert len(served) == 2                               # no process was started again
    # Each process starts a group of its own and stays on a group until it has none left:
    # its groups come in runs (a, a, a, c, c), never back to one it left (a, c, a).
    assert len({groups[0] for groups in served.values()}) == 2
    for groups in served.values():
        runs = [g for i, g in enumerate(groups) if i == 0 or groups[i - 1] != g]
        assert len(runs) == len(set(runs)), groups
    assert _children() == before                          # and none outlives the call


def test_a_stuck_or_dying_item_costs_only_itself():
    items = [("ok1", ("ok",)), ("stuck", ("sleep",)), ("dead", ("die",)), ("raises", ("raise",)),
             ("ok2", ("ok",)), ("ok3", ("ok",))]
    before = _children()
    started = time.monotonic()
    results = run_pool(items, _misbehave, workers=2, timeout=2.0)
    assert time.monotonic() - started < 20
    assert not results["stuck"].ok and "time limit" in results["stuck"].error
    assert not results["dead"].ok and "died" in results["dead"].error
    assert not results["raises"].ok and "ValueError: bad figure" in results["raises"].error
    assert all(results[n].ok for n in ("ok1", "ok2", "ok3"))
    assert _children() == before


def test_no_more_processes_than_items(monkeypatch):
    import multiprocessing as mp
    import bookkit.resolve.workers as workers
    started = []
    real = mp.get_context("fork")

    class Counting:
        def Pipe(self, duplex):
            return real.Pipe(duplex=duplex)

        def Process(self, **kwargs):
            started.append(kwargs)
            return real.Process(**kwargs)

    monkeypatch.setattr(workers.mp, "get_context", lambda method: Counting())
    results = run_pool([("only", ("x",))], _pid, workers=4)
    assert results["only"].ok and results["only"].value[0] == "x"
    assert len(started) == 1
    assert run_pool([], _pid, workers=2) == {} and len(started) == 1


def _niceness(_tag: str) -> JobResult:
    return JobResult(ok=True, value=os.nice(0))


def test_work_nobody_waits_for_runs_at_a_lower_priority():
    """`nice`: the workers drawing behind a published page (`--serve`) yield the cores; the
    parent's own priority is unchanged."""
    mine = os.nice(0)
    assert {r.value for r in run_pool([("a", ("a",)), ("b", ("b",))], _niceness).values()} == {mine}
    behind = run_pool([("a", ("a",)), ("b", ("b",))], _niceness, nice=10)
    assert {r.value for r in behind.values()} == {min(mine + 10, 19)}
    assert os.nice(0) == mine


def test_kept_workers_serve_the_next_call_and_are_replaced_when_they_die():
    """`kept` (`--serve`): the next call's items go to the processes of the last one (their
    memos warm); a kept process that died in between, or was killed for its item's time
    limit, is replaced; `nice` work gets processes of its own; `close` leaves none."""
    before = _children()
    kept = KeptWorkers()
    try:
        first = run_pool([("a", ("a",)), ("b", ("b",))], _pid, workers=2, kept=kept)
        pids = {r.value[1] for r in first.values()}
        assert len(kept.slots) == 2 and _children() - before == pids
        second = run_pool([("c", ("c",)), ("d", ("d",))], _pid, workers=2, kept=kept)
        assert {r.value[1] for r in second.values()} <= pids
        behind = run_pool([("e", ("e",))], _niceness, nice=10, kept=kept)
        assert behind["e"].value == min(os.nice(0) + 10, 19)
        assert {s["proc"].pid for s in kept.slots} == pids          # not niced, still kept
        victim = kept.slots[0]["proc"]
        victim.kill()
        victim.join()
        third = run_pool([("f", ("f",)), ("g", ("g",))], _pid, workers=2, kept=kept)
        assert all(r.ok for r in third.values())
        assert victim.pid not in {r.value[1] for r in third.values()}
        assert len(kept.slots) == 2 and all(s["proc"].is_alive() for s in kept.slots)
    finally:
        kept.close()
    assert kept.slots == [] and _children() == before


def _slow(tag: str, seconds: float = 0.0) -> JobResult:
    time.sleep(seconds)
    return JobResult(ok=True, value=(tag, os.getpid(), time.monotonic()))


def test_work_started_early_is_taken_only_for_the_same_item():
    """`KeptWorkers.start_early` (`--serve` drawing a saved figure while the build loads):
    the next call takes an early result for an item asked with equal args, without doing it
    again; an early item asked with other args is done again with those; early work nobody
    asks for is not waited for, and its result is never handed to a later call."""
    before = _children()
    kept = KeptWorkers()
    try:
        started = kept.start_early([("a", ("early-a", 0.6)), ("b", ("early-b", 0.6))], _slow,
                                   workers=2, group=lambda args: args[0])
        assert started == ["a", "b"] and len(kept.slots) == 2
        time.sleep(0.3)
        t0 = time.monotonic()
        got = run_pool([("a", ("early-a", 0.6)), ("b", ("other-b",))], _slow, workers=2,
                       kept=kept)
        # done once, from the early start: done again it would end 0.6 s after t0
        assert got["a"].value[0] == "early-a" and got["a"].value[2] < t0 + 0.5
        assert got["b"].value[0] == "other-b"
        # asked for nothing it started: returns at once, and the late result stays unclaimed
        kept.start_early([("c", ("early-c", 0.5))], _slow, workers=2)
        t0 = time.monotonic()
        assert run_pool([("d", ("d",))], _slow, workers=2, kept=kept)["d"].ok
        assert time.monotonic() - t0 < 0.4
        time.sleep(0.6)
        later = run_pool([("c", ("early-c", 0.5)), ("e", ("e",))], _slow, workers=2, kept=kept)
        assert later["c"].value[2] > t0 + 0.5 + 0.1        # done again, not the stale one
        # a build that starts early work and then fails before asking: the next start drops it
        kept.start_early([("f", ("early-f", 0.4))], _slow, workers=2)
        assert kept.start_early([], _slow, workers=2) == []
        assert run_pool([("f", ("early-f", 0.0))], _slow, workers=2, kept=kept)["f"].ok
        assert len(kept.slots) == 2
    finally:
        kept.close()
    assert _children() == before


def test_kept_workers_are_stopped_when_a_call_is_interrupted():
    before = _children()
    kept = KeptWorkers()
    run_pool([("a", ("a",))], _pid, workers=1, kept=kept)
    assert len(kept.slots) == 1

    def stop(_args):
        raise KeyboardInterrupt
    try:
        run_pool([("b", ("b",))], _pid, workers=1, kept=kept, group=stop)
    except KeyboardInterrupt:
        pass
    else:
        raise AssertionError("the interruption was swallowed")
    assert kept.slots == [] and _children() == before


def test_a_module_edited_between_jobs_runs_its_new_code(tmp_path):
    """A worker keeps compiled code per process (module byte code, and the methods
    `dataclasses` writes as text) and forgets the book's modules before each job: a module
    edited between two jobs, even to the same size, runs its new code, dataclass included,
    and two dataclasses whose methods share source text keep their own classes."""
    import subprocess
    import sys
    from pathlib import Path
    ROOT = Path(__file__).resolve().parents[2]
    module = tmp_path / "book_module.py"
    source = ("from dataclasses import dataclass\n\n@dataclass\nclass A:\n    x: int = {v}\n\n"
              "@dataclass\nclass B:\n    x: int = 7\n\nVALUE = {v}\n")
    module.write_text(source.format(v=1))
    program = f"""
import os, sys
sys.path.insert(0, {str(tmp_path)!r})
sys.path.insert(0, {str(ROOT)!r})
import dataclasses
from bookkit.resolve.workers import DependencyRecorder
seen = []
for value in (1, 2):
    if value == 2:
        path = {str(module)!r}
        with open(path, "w") as f:
            f.write({source!r}.format(v=2))
        st = os.stat(path)
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    recorder = DependencyRecorder({str(tmp_path)!r})
    import book_module
    assert book_module.VALUE == value and book_module.A().x == value, (value, book_module.A())
    assert repr(book_module.B()) == "B(x=7)" and book_module.A(3) != book_module.B(3)
    seen.append(book_module.A)
    assert "book_module.py" in recorder.collect(lambda p: "d")   # still a dependency
assert seen[0] is not seen[1]
assert dataclasses.exec.__name__ == "exec_compiled_once"
print("ok")
"""
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                          cwd=tmp_path)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr
