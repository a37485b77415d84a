"""A throwaway PostgreSQL server for the tests and benchmarks: Debian's `postgresql` binaries,
`initdb` into a temporary folder and `pg_ctl` to start and stop it, listening on 127.0.0.1 at a
free port (and on a Unix socket in the same folder), with password authentication.

    with PostgresServer() as server:
        url = server.url          # postgresql://actor:secret@127.0.0.1:PORT/actor
        server.stop(); server.start()   # a partition of a few seconds, as the client sees it
        server.psql("SELECT count(*) FROM instances")

PostgreSQL refuses to run as root: as root, every command runs as the `postgres` user (which
Debian's package creates), and the folder is given to it. Durability settings are off (fsync,
synchronous_commit): the tests kill processes, not the machine.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from typing import Any

USER = "actor"
PASSWORD = "secret"
DATABASE = "actor"


def binaries() -> str:
    """The folder of Debian's server binaries (initdb, pg_ctl, psql), the newest version."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
    if not found:
        raise RuntimeError("PostgreSQL's server is not installed (Debian package postgresql)")
    return os.path.dirname(found[-1])


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class PostgresServer:
    def __init__(self) -> None:
        self.bin = binaries()
        self.folder = tempfile.mkdtemp(prefix="composable-actor-pg-")
        self.data = os.path.join(self.folder, "data")
        self.port = free_port()
        self.as_postgres = os.geteuid() == 0
        if self.as_postgres:
            shutil.chown(self.folder, "postgres", "postgres")
        password_file = os.path.join(self.folder, "password")
        with open(password_file, "w") as file:
            file.write(PASSWORD + "\n")
        if self.as_postgres:
            shutil.chown(password_file, "postgres", "postgres")
        self._run(
            "initdb", "-D", self.data, "-U", USER, "--auth=scram-sha-256",
            f"--pwfile={password_file}", "-E", "UTF8", "--no-sync",
        )
        with open(os.path.join(self.data, "postgresql.conf"), "a") as conf:
            conf.write(
                f"port = {self.port}\nlisten_addresses = '127.0.0.1'\n"
                f"unix_socket_directories = '{self.folder}'\n"
                "fsync = off\nsynchronous_commit = off\nfull_page_writes = off\n"
                "max_connections = 200\n"
            )
        self.start()
        self.psql(f"CREATE DATABASE {DATABASE}", database="postgres")

    @property
    def url(self) -> str:
        return f"postgresql://{USER}:{PASSWORD}@127.0.0.1:{self.port}/{DATABASE}"

    def url_with(self, **parts: Any) -> str:
        """The URL with some of user, password, port and database replaced."""
        user = parts.get("user", USER)
        password = parts.get("password", PASSWORD)
        port = parts.get("port", self.port)
        database = parts.get("database", DATABASE)
        return f"postgresql://{user}:{password}@127.0.0.1:{port}/{database}"

    def _run(self, program: str, *args: str, input: str | None = None) -> str:
        command = [os.path.join(self.bin, program), *args]
        if self.as_postgres:
            command = ["runuser", "-u", "postgres", "--", *command]
        done = subprocess.run(
            command, input=input, capture_output=True, text=True, cwd=self.folder, timeout=120
        )
        if done.returncode != 0:
            raise RuntimeError(f"{program} failed ({done.returncode}): {done.stderr}{done.stdout}")
        return done.stdout

    def start(self) -> None:
        self._run(
            "pg_ctl", "-D", self.data, "-l", os.path.join(self.folder, "log"), "-w", "-t", "60",
            "start",
        )

    def stop(self, mode: str = "fast") -> None:
        """`fast` ends every session and stops; `immediate` is a crash, as a killed server."""
        self._run("pg_ctl", "-D", self.data, "-m", mode, "-w", "-t", "60", "stop")

    def psql(self, sql: str, database: str = DATABASE) -> str:
        """Runs `sql` over the Unix socket; answers psql's unaligned, tuples-only output."""
        env_password = f"PGPASSWORD={PASSWORD}"
        command = [
            "env", env_password, os.path.join(self.bin, "psql"), "-X", "-q", "-v",
            "ON_ERROR_STOP=1", "-A", "-t", "-h", self.folder, "-p", str(self.port), "-U", USER,
            "-d", database, "-c", sql,
        ]
        if self.as_postgres:
            command = ["runuser", "-u", "postgres", "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise RuntimeError(f"psql failed ({done.returncode}): {done.stderr}")
        return done.stdout.strip()

    def close(self) -> None:
        try:
            self.stop("immediate")
        except RuntimeError:
            pass
        shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> PostgresServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
