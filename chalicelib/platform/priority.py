"""CPU priority of background work where it shares a machine with requests (the local stack: the API in one process,
every other function a thread of another, both in one session). Linux gives every thread its own nice value, and
threads inherit their creator's; nice values count between the threads of one session (autogroup scheduling)."""

from __future__ import annotations

import os
import threading

# Added to the process's own nice value: refills of stocks that requests draw on soon (presignatures) run below
# requests; stocks for later (aux-info sets for wallets not yet created) run below those refills too.
BACKGROUND_NICE = 10
IDLE_NICE = 19


def lower_current_thread(nice: int = BACKGROUND_NICE) -> None:
    """This thread, and the threads it starts from now on, run `nice` below the process's priority. Nothing undoes
    it: raising a priority again needs a privilege, so lowered work runs on threads of its own."""
    try:
        base = os.getpriority(os.PRIO_PROCESS, os.getpid())
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), min(19, base + nice))
    except (AttributeError, OSError):
        pass  # no per-thread priorities here: the work runs at the normal priority


def current_thread_lowered() -> bool:
    try:
        mine = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
        return mine > os.getpriority(os.PRIO_PROCESS, os.getpid())
    except (AttributeError, OSError):
        return False
