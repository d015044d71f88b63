"""Run build jobs (calculation cells, figures) in forked worker processes, two at a time.

Why not concurrent.futures: a job that exceeds its time limit must be killed, and each job needs
a fresh interpreter state so the modules it imports and the files it opens can be recorded as its
dependencies (see `DependencyRecorder`).
"""
from __future__ import annotations

import gc
import multiprocessing as mp
import os
import sys
import time
import traceback
from dataclasses import dataclass
from typing import Any, Callable

from bookkit.util.processes import check_stopped, die_with_parent


@dataclass
class JobResult:
    ok: bool
    value: Any = None
    error: str = ""          # formatted message for the build log
    deps: dict | None = None


_local_files: dict[str, bool] = {}   # module file -> not from an installed package
_recording: list["DependencyRecorder"] = []   # the process's current recorder (at most one)


def _audit(event: str, args: tuple) -> None:
    if _recording:
        _recording[0]._hook(event, args)


class DependencyRecorder:
    """Records local files a job reads or imports (paths under `root`), via an audit hook.

    A process installs one hook, which feeds the newest recorder: audit hooks cannot be
    removed, and a worker that draws several figures in turn would otherwise run every earlier
    recorder's hook on each event (and record into all of them).
    """

    def __init__(self, root: str, ignore: tuple[str, ...] = ()) -> None:
        self.root = root.rstrip("/") + "/"
        # Installed packages are versioned in the cache key, not hashed file by file (a venv
        # or node_modules inside the book folder would otherwise add hundreds of deps).
        self.ignore = tuple(ignore) + (os.path.join(self.root, ".venv"),
                                       os.path.join(self.root, "website", "node_modules"),
                                       os.path.realpath(sys.prefix))
        self.files: set[str] = set()
        # A forked job inherits the parent's modules. Forget the book's own modules (e.g.
        # `calculations`, imported by a test or an earlier in-process draw) so that the job
        # imports them again and they, and the data files they load lazily, are recorded.
        # Any module loaded from outside the Python installation counts as local, whichever
        # book folder it came from (a test process may have imported another copy's).
        installed = tuple(os.path.realpath(p) for p in {sys.prefix, sys.base_prefix})
        for name, module in list(sys.modules.items()):
            path = getattr(module, "__file__", None)
            if not path or name == "bookkit" or name.startswith("bookkit."):
                continue
            local = _local_files.get(path)
            if local is None:   # memoised: a worker drawing figures in turn asks each time
                real = os.path.realpath(path)
                local = _local_files[path] = (not real.startswith(installed)
                                              and "/site-packages/" not in real)
            if local:
                del sys.modules[name]
        self._modules_before = set(sys.modules)
        if not _recording:
            sys.addaudithook(_audit)
            _memoise_compiled_sources()
        _recording[:] = [self]

    def _hook(self, event: str, args: tuple) -> None:
        if event == "open" and args and isinstance(args[0], str):
            path = os.path.abspath(args[0])
            # Byte-code caches are not inputs: the module's source is (see `collect`), and a
            # copy of the book (tests, CI) has no __pycache__ of its own.
            if (path.startswith(self.root) and not path.startswith(self.ignore)
                    and "/site-packages/" not in path and "/__pycache__/" not in path):
                mode = args[1] if len(args) > 1 else "r"
                if not isinstance(mode, str) or ("w" not in mode and "a" not in mode):
                    self.files.add(path)

    def collect(self, hasher: Callable[[str], str | None]) -> dict[str, str]:
        for name in set(sys.modules) - self._modules_before:
            path = getattr(sys.modules.get(name), "__file__", None)
            if (path and os.path.abspath(path).startswith(self.root)
                    and not os.path.abspath(path).startswith(self.ignore)
                    and "/site-packages/" not in path):
                self.files.add(os.path.abspath(path))
        # Relative to the book root, so a cache stays valid in a copy of the book (tests, CI).
        deps = {}
        for path in sorted(self.files):
            if os.path.isfile(path):
                digest = hasher(path)
                if digest:
                    deps[os.path.relpath(path, self.root)] = digest
        return deps


#: compiled code by (path, source bytes), (path, mtime_ns, size) or generated source text
_compiled: dict[tuple | str, Any] = {}


def _memoise_compiled_sources() -> None:
    """Compile each local module's source once per process, not once per job.

    A worker forgets the book's modules before each job and imports them again (so that the
    job's dependencies are recorded, above). Importing is cheap; compiling is not, and it was
    being done again for every figure a worker drew:
    - a module's code: without a byte-code cache on disk (PYTHONDONTWRITEBYTECODE, a fresh
      clone) `calculations` was compiled again (~4 % of drawing the book's figures), and with
      one it was unmarshalled again. The memo is keyed on the path and the source's size and
      modification time in nanoseconds (what a .pyc is checked against, finer), or on the
      source bytes when importlib hands them over, so an edited module compiles afresh. The
      module still runs, and its file is still recorded (`collect`).
    - the methods `dataclasses` writes for every class it decorates (`__init__`, `__repr__`,
      `__eq__`...): it composes their source and `exec`s it, which compiles it each time;
      `calculations` defines ~30 such classes, a third of re-importing it. Same source text,
      same code object: the memo keys on the text, and `exec` then runs the code in the
      globals and locals it was given, as before.
    Written by hand: importlib has no in-memory byte-code cache, and dataclasses no switch."""
    import dataclasses
    from importlib.machinery import SourceFileLoader
    original = SourceFileLoader.source_to_code
    if getattr(original, "_bookkit_memo", False):
        return

    def source_to_code(self, data, path, *, _optimize=-1):
        if not isinstance(data, bytes) or _optimize != -1:
            return original(self, data, path, _optimize=_optimize)
        key = (str(path), data)
        code = _compiled.get(key)
        if code is None:
            code = _compiled[key] = original(self, data, path)
        return code

    original_get_code = SourceFileLoader.get_code

    def get_code(self, fullname):
        try:
            st = os.stat(self.path)
        except OSError:
            return original_get_code(self, fullname)
        key = (self.path, st.st_mtime_ns, st.st_size)
        code = _compiled.get(key)
        if code is None:
            code = original_get_code(self, fullname)
            if code is not None:
                _compiled[key] = code
        return code

    def exec_compiled_once(source, globals=None, locals=None, /):
        if isinstance(source, str):
            code = _compiled.get(source)
            if code is None:
                code = _compiled[source] = compile(source, "<string>", "exec")
            source = code
        return exec(source, globals, locals)

    source_to_code._bookkit_memo = True
    SourceFileLoader.source_to_code = source_to_code
    SourceFileLoader.get_code = get_code
    # `dataclasses` calls the builtin `exec` by its global name: a module global of that name
    # is found first. Only where it composes methods as text (3.11–3.13 all do).
    if not hasattr(dataclasses, "exec"):
        dataclasses.exec = exec_compiled_once


#: how many characters one job (a chapter's cells, a figure) may print into the build log
OUTPUT_CAP = 64 * 1024


class _CappedStream:
    """sys.stdout/sys.stderr of a job: written through until the job has printed OUTPUT_CAP
    characters (both streams together), then counted and dropped. A cell that prints in a loop
    would otherwise write without bound into the terminal or CI log. Python-level: output
    written to the file descriptors directly (os.write, a subprocess) is not seen."""

    def __init__(self, stream, budget: list[int], dropped: list[int]) -> None:
        self._stream, self._budget, self._dropped = stream, budget, dropped

    def write(self, text: str) -> int:
        room = self._budget[0]
        data = str(text)
        if len(data) > room:
            self._dropped[0] += len(data) - room
            data = data[:room]
        self._budget[0] -= len(data)
        if data:
            self._stream.write(data)
        return len(text)

    def flush(self) -> None:
        self._stream.flush()

    def __getattr__(self, name):     # isatty, encoding, fileno…: the real stream's
        return getattr(self._stream, name)


def _run_capped(func, args):
    """`func(*args)` with its printed output capped (`OUTPUT_CAP`), the cap said in the log."""
    budget, dropped = [OUTPUT_CAP], [0]
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _CappedStream(out, budget, dropped), _CappedStream(err, budget, dropped)
    try:
        return func(*args)
    finally:
        sys.stdout, sys.stderr = out, err
        if dropped[0]:
            err.write(f"\n[bookkit: output capped at {OUTPUT_CAP:,} characters per cell run or "
                      f"figure: {dropped[0]:,} more characters not shown in the build log]\n")
            err.flush()


def _child(conn, func, args, parent_pid: int) -> None:
    die_with_parent(parent_pid)
    try:
        result = _run_capped(func, args)
    except BaseException:  # reported to the parent, which decides what to show
        result = JobResult(ok=False, error=traceback.format_exc())
    try:
        conn.send(result)
    finally:
        conn.close()


def run_jobs(jobs: list[tuple[str, Callable, tuple]], workers: int = 2,
             timeout: float = 60.0, on_done: Callable[[str, JobResult], None] | None = None
             ) -> dict[str, JobResult]:
    """Run `func(*args)` for each (name, func, args) in forked processes; kill any over `timeout`."""
    ctx = mp.get_context("fork")
    pending = list(jobs)
    running: dict[str, tuple[Any, Any, float]] = {}
    results: dict[str, JobResult] = {}
    if workers <= 1 or len(jobs) <= 1:
        workers = max(1, min(workers, len(jobs)))
    try:
        while pending or running:
            check_stopped()
            while pending and len(running) < workers:
                name, func, args = pending.pop(0)
                parent, child = ctx.Pipe(duplex=False)
                proc = ctx.Process(target=_child, args=(child, func, args, os.getpid()),
                                   daemon=True)
                _start_frozen(proc)
                child.close()
                running[name] = (proc, parent, time.monotonic())
            ready = mp.connection.wait([p for _, p, _ in running.values()], timeout=0.05)
            now = time.monotonic()
            for name in list(running):
                proc, conn, started = running[name]
                if conn in ready:
                    try:
                        result = conn.recv()
                    except EOFError:
                        result = JobResult(ok=False, error="worker process died without a result")
                    proc.join()
                    conn.close()
                    del running[name]
                elif now - started > timeout:
                    proc.kill()
                    proc.join()
                    conn.close()
                    del running[name]
                    result = JobResult(ok=False, error=f"stopped after {timeout:g} s (time limit; "
                                       "raise it with --cell-timeout if the work is legitimate)")
                else:
                    continue
                results[name] = result
                if on_done:
                    on_done(name, result)
    finally:
        # Interrupted (Ctrl+C, SIGTERM, a failing callback): no worker may outlive the call.
        for proc, conn, _ in running.values():
            proc.kill()
            proc.join()
            conn.close()
    return results


def _start_frozen(proc) -> None:
    """Fork `proc` with the garbage collector kept off the objects it inherits.

    A collection in the child touches every object, which copies the parent's heap page by
    page after the fork and walks all of it. Measured on a ring diagram drawn in a process
    forked from one that had only loaded matplotlib: ~0.37 s instead of ~0.45 s for the
    first figure, ~0.25 s instead of ~0.35 s for the next ones; in a `--serve` rebuild the
    difference was within the noise (0.84-0.87 s either way)."""
    gc.freeze()
    try:
        proc.start()
    finally:
        gc.unfreeze()


def _serve(conn, func, parent_pid: int, nice: int = 0) -> None:
    """A long-lived worker: `func(*args)` for each args received, a result sent for each."""
    die_with_parent(parent_pid)
    if nice:
        os.nice(nice)
    while True:
        try:
            args = conn.recv()
        except EOFError:
            return
        if args is None:
            return
        try:
            result = _run_capped(func, args)
        except BaseException:  # reported to the parent, which decides what to show
            result = JobResult(ok=False, error=traceback.format_exc())
        conn.send(result)


def _start_slot(func: Callable[..., JobResult], nice: int = 0) -> dict:
    """A long-lived worker process (`_serve`) and what `run_pool` tracks of it."""
    ctx = mp.get_context("fork")
    parent, child = ctx.Pipe(duplex=True)
    proc = ctx.Process(target=_serve, args=(child, func, os.getpid(), nice), daemon=True)
    _start_frozen(proc)
    child.close()
    return {"proc": proc, "conn": parent, "item": None, "started": 0.0, "group": None,
            "early": None, "discard": False}


class KeptWorkers:
    """`run_pool`'s processes kept from one call to the next (`--serve`): a figure saved
    again is drawn by a process that has drawn before, with matplotlib's memos for its texts
    and glyphs warm (~0.3 s a ring diagram instead of ~0.45 s in a newly forked one). For one
    function, and for calls at niceness 0 only (a process cannot lower its niceness again)."""

    def __init__(self) -> None:
        self.slots: list[dict] = []
        self.func: Callable | None = None

    def start_early(self, items: list[tuple[str, tuple]], func: Callable[..., JobResult],
                    workers: int = 2,
                    group: Callable[[tuple], Any] = lambda args: None) -> list[str]:
        """Hand (name, args) items to idle processes (started up to `workers`) now, before the
        `run_pool` call that will ask for them: `--serve` starts drawing a saved figure script
        while the build loads, runs and numbers the book (bench/PROFILE.md, thirteenth round).
        That call takes an item's result only if it asks for the same name with equal args;
        anything started earlier and not yet taken is dropped. The names started."""
        self.drop_early()           # an earlier build's early work nobody asked for
        if self.func not in (None, func):
            return []
        self.func = func
        for slot in list(self.slots):
            if not slot["proc"].is_alive():
                slot["proc"].join()
                slot["conn"].close()
                self.slots.remove(slot)
            elif slot["discard"] and slot["conn"].poll():   # dropped work done: idle again
                try:
                    slot["conn"].recv()
                    slot.update(item=None, early=None, discard=False)
                except (EOFError, OSError):
                    pass
        started = []
        pending = list(items)
        while pending:
            idle = [s for s in self.slots if s["item"] is None]
            if not idle and len(self.slots) < workers:
                self.slots.append(_start_slot(func))
                continue
            if not idle:
                break
            name, args = pending.pop(0)
            # the process that drew this group (language) before: its memos are warm for it
            slot = next((s for s in idle if s["group"] == group(args)), idle[0])
            try:
                slot["conn"].send(args)
            except OSError:      # died while idle: `run_pool` replaces it
                break
            slot.update(item=name, started=time.monotonic(), group=group(args), early=args,
                        discard=False)
            started.append(name)
        return started

    def drop_early(self) -> None:
        """Work started early is not for the next `run_pool` call: its results are dropped."""
        for slot in self.slots:
            if slot.get("early") is not None:
                slot["discard"] = True

    def close(self) -> None:
        for slot in self.slots:
            slot["proc"].kill()
            slot["proc"].join()
            slot["conn"].close()
        self.slots.clear()


def run_pool(items: list[tuple[str, tuple]], func: Callable[..., JobResult], workers: int = 2,
             timeout: float = 60.0, group: Callable[[tuple], Any] = lambda args: None,
             nice: int = 0, kept: KeptWorkers | None = None) -> dict[str, JobResult]:
    """`func(*args)` for each (name, args), on `workers` long-lived forked processes that are
    handed one item at a time; an item over `timeout` is killed with its process, which is
    replaced (so are processes that die).

    Unlike `run_jobs` (a process per job), a process serves many items, so what one item
    loads or memoises (fonts, text and math layouts) serves the next; handing items out one at
    a time keeps both cores busy to the end, where fixed batches left one idle for a batch's
    length. `group(args)` names what items share: a process keeps to its group, a free one
    starts the largest group no other process is on, and only then helps with another's.
    `nice`: added to the processes' niceness (work nobody waits for yields the cores).
    `kept`: processes to start from and to leave running for the next call (not with `nice`);
    what `kept.start_early` handed them counts as started for the items it matches.
    """
    pending = list(items)
    items_by_name = dict(items)
    if kept is not None and (nice or kept.func not in (None, func)):
        kept = None
    slots: list[dict] = kept.slots if kept is not None else []
    if kept is not None:
        kept.func = func
        for slot in list(slots):   # a kept process that died in between is replaced
            if not slot["proc"].is_alive():
                slot["proc"].join()
                slot["conn"].close()
                slots.remove(slot)
    results: dict[str, JobResult] = {}

    # Work `KeptWorkers.start_early` handed out for this call: an item asked for again with
    # equal args is already being done; anything else started early is not waited for.
    for slot in slots:
        if slot.get("early") is None or slot.get("discard"):
            continue
        match = next((i for i, (name, args) in enumerate(pending)
                      if name == slot["item"] and args == slot["early"]), None)
        if match is None:
            slot["discard"] = True
        else:
            pending.pop(match)
            slot["early"] = None

    def start() -> dict:
        return _start_slot(func, nice)

    def take(slot: dict) -> None:
        groups = [group(args) for _name, args in pending]
        mine = [i for i, g in enumerate(groups) if g == slot["group"]]
        if not mine:
            busy = {s["group"] for s in slots if s is not slot and s["item"] is not None}
            sizes = {g: groups.count(g) for g in groups}
            free = [g for g in sizes if g not in busy] or list(sizes)
            chosen = max(free, key=lambda g: sizes[g])
            mine = [groups.index(chosen)]
        name, args = pending.pop(mine[0])
        slot.update(item=name, started=time.monotonic(), group=group(args), early=None,
                    discard=False)
        slot["conn"].send(args)

    def stop(slot: dict) -> None:
        slot["proc"].kill()
        slot["proc"].join()
        slot["conn"].close()

    try:
        while pending or any(s["item"] is not None and not s.get("discard") for s in slots):
            check_stopped()
            idle = sum(1 for s in slots if s["item"] is None)
            while len(slots) < workers and idle < len(pending):   # no process without work
                slots.append(start())
                idle += 1
            for slot in list(slots):
                if slot["item"] is None and pending:
                    try:
                        take(slot)
                    except OSError:   # it died while idle: the item goes back, a new one starts
                        pending.insert(0, (slot["item"], items_by_name[slot["item"]]))
                        stop(slot)
                        slots.remove(slot)
            busy = [s for s in slots if s["item"] is not None]
            ready = mp.connection.wait([s["conn"] for s in busy], timeout=0.05)
            now = time.monotonic()
            for slot in busy:
                if slot["conn"] in ready:
                    try:
                        result = slot["conn"].recv()
                        if not slot.get("discard"):
                            results[slot["item"]] = result
                        slot.update(item=None, early=None, discard=False)
                        continue
                    except EOFError:
                        result = JobResult(ok=False, error="worker process died without a result")
                elif now - slot["started"] > timeout:
                    result = JobResult(ok=False, error=f"stopped after {timeout:g} s (time limit; "
                                       "raise it with --cell-timeout if the work is legitimate)")
                else:
                    continue
                if not slot.get("discard"):
                    results[slot["item"]] = result
                stop(slot)
                slots.remove(slot)
        if kept is None:
            for slot in slots:   # all idle: let them exit
                slot["conn"].send(None)
                slot["proc"].join()
                slot["conn"].close()
            slots.clear()
    except BaseException:
        # Interrupted (Ctrl+C, SIGTERM, a failing callback): no worker may outlive the call.
        for slot in slots:
            stop(slot)
        slots.clear()
        raise
    return results


class Background:
    """`func(*args)` in one forked process while the caller goes on; `result()` waits for it.

    `func` returns a `JobResult`; an exception in it comes back as a failed one.
    """

    def __init__(self, func: Callable[..., JobResult], args: tuple) -> None:
        ctx = mp.get_context("fork")
        self._conn, child = ctx.Pipe(duplex=False)
        self._proc = ctx.Process(target=_child, args=(child, func, args, os.getpid()),
                                 daemon=True)
        _start_frozen(self._proc)
        child.close()
        try:
            check_stopped()
        except BaseException:
            self.cancel()
            raise

    def result(self) -> JobResult:
        try:
            result = self._conn.recv()
        except EOFError:
            result = JobResult(ok=False, error="worker process died without a result")
        self._proc.join()
        self._conn.close()
        return result

    def cancel(self) -> None:
        """Stop the process if it is still running (the build failed before it was needed)."""
        if self._proc.is_alive():
            self._proc.kill()
        self._proc.join()
        self._conn.close()
