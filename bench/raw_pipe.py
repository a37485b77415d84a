"""The binary on a pipe that the benchmark writes and reads by hand, with no client: the floor
a client's cost is measured against."""
import os
import subprocess


class RawPipe:
    def __init__(self, binary: str, data: str):
        self.process = subprocess.Popen(
            [binary, "--data-dir", data], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self._stdin, self._stdout = self.process.stdin.fileno(), self.process.stdout.fileno()
        self._pending = b""

    def write(self, data: bytes) -> None:
        os.write(self._stdin, data)

    def line(self) -> bytes:
        """The next line, without its newline."""
        while b"\n" not in self._pending:
            self._pending += os.read(self._stdout, 65536)
        text, self._pending = self._pending.split(b"\n", 1)
        return text

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait()
