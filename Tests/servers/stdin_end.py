"""How the test servers end with the harness that started them: when their stdin, a pipe from
that harness, reaches its end. Shared by fixture_server.py and ws_servers.py."""

import argparse
import os
import stat
import threading
from collections.abc import Callable


def add_no_stdin_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--no-stdin", action="store_true", help="never end on stdin's EOF, only on a signal")


def stdin_is_a_pipe() -> bool:
    """Whether stdin is a pipe or socket, whose EOF means the parent is gone (not /dev/null, a
    file or a terminal: in the background a terminal read would stop the process)."""
    try:
        mode = os.fstat(0).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def call_at_stdin_end(on_end: Callable[[], None]) -> None:
    """Calls `on_end`, from a daemon thread, once stdin ends, if stdin is a pipe or socket."""
    if not stdin_is_a_pipe():
        return

    def wait() -> None:
        # os.read, not sys.stdin: a daemon thread blocked inside the buffered reader holds its
        # lock and makes the interpreter abort at exit.
        while os.read(0, 65536):
            pass
        on_end()

    threading.Thread(target=wait, daemon=True).start()
