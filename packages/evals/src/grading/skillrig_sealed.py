"""skillrig_sealed: an eval's script checker runs the agent's program in a sandbox of its own.

The checker can read the skill's evals/ (its hidden inputs, expected outputs); the agent's program must not. So the
checker never starts it itself: it asks the runner, over the socket named in $SKILLRIG_SEALED_SOCKET, and the runner
starts the program in a fresh sandbox (as a uid of its own where the machine gives one) that holds a fresh copy of the
run's outputs/ and what the checker hands it here (argv, stdin, named files), nothing else: no evals/, no answer
file, no checker files, none of the checker's environment. What comes back is how it ended, bounded.

In Python (the checker's PYTHONPATH holds this module):

    from skillrig_sealed import run
    result = run(["python3", "solve.py"], stdin="3 4\\n", files={"case.txt": "..."}, timeout_ms=5000)
    result.stdout, result.stderr, result.exit_code, result.signal, result.ended, result.duration_ms

From a shell:

    python3 -m skillrig_sealed [--timeout-ms N] [--file NAME=PATH ...] [--json] -- python3 solve.py < input

prints the program's stdout and stderr and exits with its exit code (124 when it passed its time limit, 128 + n when
killed by signal n, 125 when the runner refused the request); with --json prints the whole result as one JSON object.
"""
import base64
import json
import os
import socket
import sys

__all__ = ["run", "SealedResult", "SealedRunError"]

SIGNALS = {"SIGHUP": 1, "SIGINT": 2, "SIGQUIT": 3, "SIGILL": 4, "SIGABRT": 6, "SIGFPE": 8, "SIGKILL": 9, "SIGSEGV": 11,
           "SIGPIPE": 13, "SIGALRM": 14, "SIGTERM": 15, "SIGXCPU": 24, "SIGXFSZ": 25}


class SealedRunError(Exception):
    """The runner refused the request or could not run it; `code` is its stable code."""

    def __init__(self, code, message):
        super().__init__(f"[{code}] {message}")
        self.code = code


class SealedResult:
    """How the agent's program ended: ended is one of exited, timeout, memory_limit, output_limit, disk_limit, signal."""

    def __init__(self, reply):
        self.stdout = reply.get("stdout", "")
        self.stderr = reply.get("stderr", "")
        self.exit_code = reply.get("exit_code")
        self.signal = reply.get("signal")
        self.ended = reply.get("ended", "exited")
        self.duration_ms = reply.get("duration_ms", 0)

    @property
    def ok(self):
        return self.ended == "exited" and self.exit_code == 0

    def as_dict(self):
        return {"stdout": self.stdout, "stderr": self.stderr, "exit_code": self.exit_code, "signal": self.signal,
                "ended": self.ended, "duration_ms": self.duration_ms}

    def __repr__(self):
        return f"SealedResult(ended={self.ended!r}, exit_code={self.exit_code!r}, signal={self.signal!r})"


def _b64(data):
    if isinstance(data, str):
        data = data.encode("utf-8")
    return base64.b64encode(bytes(data)).decode("ascii")


def run(argv, stdin=b"", files=None, timeout_ms=None):
    """Runs argv (e.g. ["python3", "solve.py"]) in the sealed sandbox; returns a SealedResult."""
    if isinstance(argv, str) or not argv or not all(isinstance(a, str) for a in argv):
        raise TypeError("argv must be a non-empty list of strings")
    request = {"argv": list(argv), "stdin_b64": _b64(stdin or b""),
               "files": {str(name): _b64(content) for name, content in (files or {}).items()}}
    if timeout_ms is not None:
        request["timeout_ms"] = int(timeout_ms)
    path = os.environ.get("SKILLRIG_SEALED_SOCKET")
    if not path:
        raise SealedRunError("sealed_unavailable", "SKILLRIG_SEALED_SOCKET is not set: run this from an eval's script checker")
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.connect(path)
        conn.sendall(json.dumps(request).encode("utf-8") + b"\n")
        conn.shutdown(socket.SHUT_WR)
        chunks = []
        while True:
            chunk = conn.recv(1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
    try:
        reply = json.loads(b"".join(chunks).decode("utf-8"))
    except ValueError:
        raise SealedRunError("sealed_protocol", "the runner's reply is not JSON (did it stop?)") from None
    if "error" in reply:
        raise SealedRunError(reply["error"].get("code", "sealed_refused"), reply["error"].get("message", ""))
    return SealedResult(reply)


def _main(args):
    timeout_ms = None
    files = {}
    as_json = False
    while args and args[0] != "--":
        flag = args.pop(0)
        if flag == "--json":
            as_json = True
        elif flag == "--timeout-ms" and args:
            timeout_ms = int(args.pop(0))
        elif flag == "--file" and args and "=" in args[0]:
            name, path = args.pop(0).split("=", 1)
            with open(path, "rb") as handle:
                files[name] = handle.read()
        else:
            print(f"skillrig_sealed: unknown or incomplete option {flag!r}; usage: python3 -m skillrig_sealed "
                  "[--timeout-ms N] [--file NAME=PATH ...] [--json] -- PROGRAM [ARG ...]", file=sys.stderr)
            return 125
    argv = args[1:]
    if not argv:
        print("skillrig_sealed: no program given after --", file=sys.stderr)
        return 125
    stdin = b"" if sys.stdin is None or sys.stdin.isatty() else sys.stdin.buffer.read()
    try:
        result = run(argv, stdin=stdin, files=files, timeout_ms=timeout_ms)
    except SealedRunError as error:
        print(f"skillrig_sealed: {error}", file=sys.stderr)
        return 125
    if as_json:
        print(json.dumps(result.as_dict()))
        return 0
    sys.stdout.write(result.stdout)
    sys.stderr.write(result.stderr)
    if result.ended == "timeout":
        return 124
    if result.signal:
        return 128 + SIGNALS.get(result.signal, 0)
    return result.exit_code if isinstance(result.exit_code, int) else 125


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
