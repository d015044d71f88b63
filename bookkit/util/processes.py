"""Child processes die with the build.

A build forks workers (cells, figures, the search indexer) and starts one Node process for
KaTeX. Killed from outside (a CI timeout or a service manager sends SIGTERM; the OOM killer sends
SIGKILL), Python runs no cleanup by default: the workers were left blocked for ever writing their
results (tens of MB) into pipes that their siblings kept open, and Node waited on a stdin that
the workers also held. Two measures, so that nothing outlives the build:

- SIGTERM and SIGHUP become `SystemExit` in the build's process (`stop_on_signals`), so the
  `finally` blocks that reap workers and Node run, exactly as for Ctrl+C.
- Every forked worker asks the kernel for SIGKILL when its parent dies (`die_with_parent`,
  Linux's PR_SET_PDEATHSIG), which covers SIGKILL of the build, where no cleanup can run. Node
  cannot make that call; `katex_render.js` exits when its parent changes or its input closes.
"""
from __future__ import annotations

import ctypes
import os
import signal
import sys

_PR_SET_PDEATHSIG = 1   # <linux/prctl.h>


def _load_libc():
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


# Loaded once in the parent: a forked child then makes the call without loading anything.
_LIBC = _load_libc()


def die_with_parent(parent_pid: int) -> None:
    """In a freshly forked child: be killed when the process `parent_pid` ends.

    The check after the call closes the race where the parent died between the fork and the
    request (the child was then already re-parented, and no signal would ever come).
    """
    if _LIBC is not None:
        _LIBC.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent_pid:
        os._exit(1)
    # A worker signalled on its own (a service manager signals the whole group) just ends;
    # the parent reports it as a worker that died.
    global _stop_signal
    _stop_signal = None
    for name in ("SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_DFL)


class Stopped(SystemExit):
    """Raised in the main thread by SIGTERM or SIGHUP; exits with 128 + the signal's number,
    the shell's convention for "ended by signal N" (143 for SIGTERM), unless caught (`--serve`
    treats it as a normal stop, like Ctrl+C)."""


_stop_signal: int | None = None


def _raise_exit(signum, _frame) -> None:
    global _stop_signal
    _stop_signal = signum
    raise Stopped(128 + signum)


def check_stopped() -> None:
    """Raise `Stopped` again if a stop signal came. Why: Python runs a handler at the next
    bytecode, and when that is inside an at-fork callback (logging registers one) the exception
    is printed and ignored; loops that fork call this so that the signal is not lost."""
    if _stop_signal is not None:
        raise Stopped(128 + _stop_signal)


def stop_on_signals() -> None:
    """Make SIGTERM and SIGHUP stop this process the way Ctrl+C does: by an exception, so that
    `finally` blocks reap child processes and no output is left half-written.

    Only the main thread can install handlers; elsewhere (a test calling the build from a
    thread) this does nothing and the caller's own handling applies.
    """
    import threading
    if threading.current_thread() is not threading.main_thread():
        return
    for name in ("SIGTERM", "SIGHUP"):
        signum = getattr(signal, name, None)
        if signum is not None:
            signal.signal(signum, _raise_exit)
