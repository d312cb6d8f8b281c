"""skillrig function harness: imports a deliverable once, then calls fn(*args) once per case in a forked child.

Usage: python3 function_harness.py <entry_file> <function_name>

Protocol (JSON lines; the harness writes only through a private copy of fd 1, so nothing the deliverable
prints can corrupt it):
  harness -> runner, first line:  {"op":"ready","signature":{...}|null,"signature_error":..., "import_stdout":..., ...}
                               or {"op":"load_error","kind":..., "message":..., "traceback":...}
  runner -> harness:  {"id":N,"args":[...],"wall_ms":..,"cpu_ms":..,"memory_bytes":..,"output_bytes":..}
  harness -> runner:  {"id":N,"status":"ok"|"error"|"timeout"|"memory_limit"|"output_limit",
                       "ms":..,"stdout":..,"stderr":..,"message":..,"details":{...},"value":<raw JSON>}
  EOF on stdin: the harness kills every case still running and exits.

Isolation: after the import the harness forks one child per case. The child inherits the imported module as it
was after import (copy-on-write), so whatever one case does to module state (a counter, a global list, a patched
function, the working folder) dies with its child and no other case sees it. Each child runs in its own process
group, in its own sub-folder of the working folder, with stdout/stderr on pipes of their own and RLIMIT_AS/RLIMIT_CPU
set to the case's limits. The parent multiplexes every running child with one selector, so several cases run at
once; the wall clock and the output caps are enforced by the parent, which kills the child's whole process group.
"""

import importlib.util
import inspect
import io
import json
import os
import resource
import selectors
import shutil
import signal
import sys
import time
import traceback

HARNESS_FILE = os.path.abspath(__file__)
# Kept of a traceback: the innermost frames, where the bug usually is.
TRACEBACK_FRAMES = 30
REPR_CHARS = 300

# The protocol keeps private copies of fds 0 and 1; the real fds 0/1 point at /dev/null in the parent and at the
# case's pipes in a child, so a deliverable that prints (even from C or a subprocess) never touches the protocol.
PROTO_IN = os.dup(0)
PROTO_OUT = os.dup(1)
DEVNULL = os.open(os.devnull, os.O_RDWR)
os.dup2(DEVNULL, 0)
os.dup2(DEVNULL, 1)
for fd in (PROTO_IN, PROTO_OUT, DEVNULL):
    os.set_inheritable(fd, False)


def send(obj):
    write_all(PROTO_OUT, (json.dumps(obj) + "\n").encode("utf-8"))


def write_all(fd, data):
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def is_harness_frame(frame):
    name = frame.filename
    return name == HARNESS_FILE or name.startswith("<frozen importlib")


def trimmed_traceback(exc):
    """The traceback without the harness's own frames (and importlib's), innermost frames kept."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if not is_harness_frame(f)]
    dropped = max(0, len(frames) - TRACEBACK_FRAMES)
    frames = frames[dropped:]
    lines = ["Traceback (most recent call last):\n"]
    if dropped:
        lines.append(f"  ... {dropped} earlier frame(s) omitted ...\n")
    lines.extend(traceback.format_list(frames))
    lines.extend(traceback.format_exception_only(type(exc), exc))
    return "".join(lines)


def short_repr(value):
    try:
        text = repr(value)
    except BaseException as exc:  # a broken __repr__ must not hide the real problem
        text = f"<{type(value).__name__} whose repr() raised {type(exc).__name__}>"
    return text if len(text) <= REPR_CHARS else text[: REPR_CHARS - 3] + "..."


def exception_message(exc):
    try:
        text = str(exc)
    except BaseException:
        text = "<str() of the exception raised>"
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


# ---------------------------------------------------------------------------------------------- loading


def load_function(entry_file, function_name):
    """Imports the deliverable once. Returns (fn, None) or (None, load_error)."""
    module_name = os.path.splitext(os.path.basename(entry_file))[0]
    display = os.path.basename(entry_file)
    sys.path.insert(0, os.path.dirname(entry_file))
    # Prints at import time are kept and reported, never mixed into the protocol.
    captured_out, captured_err = io.StringIO(), io.StringIO()
    real_out, real_err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = captured_out, captured_err
    try:
        spec = importlib.util.spec_from_file_location(module_name, entry_file)
        if spec is None or spec.loader is None:
            return None, {"kind": "import_error", "message": f"{display} cannot be imported as a Python module"}
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        spec.loader.exec_module(module)
    except SyntaxError as exc:
        where = f"{display} line {exc.lineno}" if exc.lineno else display
        return None, {
            "kind": "syntax_error",
            "message": f"{type(exc).__name__} in {where}: {exc.msg}",
            "traceback": "".join(traceback.format_exception_only(type(exc), exc)),
        }
    except BaseException as exc:
        return None, {
            "kind": "import_error",
            "message": f"importing {display} raised {exception_message(exc)}",
            "traceback": trimmed_traceback(exc),
        }
    finally:
        sys.stdout, sys.stderr = real_out, real_err
        import_output["stdout"] = captured_out.getvalue()[-4000:]
        import_output["stderr"] = captured_err.getvalue()[-4000:]

    missing = object()
    fn = getattr(module, function_name, missing)
    if fn is missing:
        defined = sorted(
            name for name, value in vars(module).items()
            if callable(value) and not name.startswith("_") and getattr(value, "__module__", None) == module_name
        )
        offer = f"; it defines {', '.join(defined)}" if defined else "; it defines no public functions"
        return None, {"kind": "missing_function", "message": f'{display} has no function "{function_name}"{offer}'}
    if not callable(fn):
        return None, {
            "kind": "not_callable",
            "message": f'"{function_name}" in {display} is a {type(fn).__name__} ({short_repr(fn)}), not a function',
        }
    return fn, None


import_output = {"stdout": "", "stderr": ""}


def describe_signature(fn, function_name):
    """The parameters the runner checks each case's args against, or why they cannot be known."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError) as exc:
        return None, f"inspect.signature({function_name}) failed: {exc}"
    params = []
    for p in sig.parameters.values():
        params.append({"name": p.name, "kind": p.kind.name, "has_default": p.default is not p.empty})
    bare = sig.replace(
        parameters=[p.replace(annotation=p.empty) for p in sig.parameters.values()],
        return_annotation=sig.empty,
    )
    text = f"{function_name}{bare}"
    if len(text) > 200:
        text = text[:197] + "..."
    return {"display": text, "parameters": params}, None


# ---------------------------------------------------------------------------------------------- a case, in the child


def run_child(fn, request, res_w, out_w, err_w, case_dir, close_fds):
    """In the forked child: never returns."""
    try:
        os.setpgid(0, 0)
        os.dup2(out_w, 1)
        os.dup2(err_w, 2)
        os.dup2(DEVNULL, 0)
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        for fd in close_fds:
            try:
                os.close(fd)
            except OSError:
                pass
        memory = request.get("memory_bytes")
        if memory:
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        cpu_ms = request.get("cpu_ms")
        if cpu_ms:
            seconds = max(1, -(-cpu_ms // 1000))
            _, hard = resource.getrlimit(resource.RLIMIT_CPU)
            soft = seconds if hard == resource.RLIM_INFINITY else min(seconds, hard)
            resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))
        os.mkdir(case_dir)
        os.chdir(case_dir)
    except BaseException as exc:
        write_all(res_w, (json.dumps({"status": "error", "message": f"the harness could not prepare the case: {exception_message(exc)}"}) + "\n").encode())
        os._exit(0)

    header = None
    body = b""
    started = time.perf_counter()
    try:
        value = fn(*request["args"])
        ms = (time.perf_counter() - started) * 1000
        try:
            body = json.dumps(value, allow_nan=False).encode("utf-8")
            header = {"status": "ok", "ms": ms}
        except MemoryError:
            header = {"status": "memory_limit", "ms": ms, "message": "the return value could not be encoded within the memory limit"}
        except BaseException as exc:
            header = {
                "status": "error",
                "ms": ms,
                "message": f"the return value cannot be represented in JSON: {type(value).__name__} {short_repr(value)} ({exc})",
                "details": {"return_type": type(value).__name__, "return_repr": short_repr(value)},
            }
    except MemoryError:
        header = {
            "status": "memory_limit",
            "ms": (time.perf_counter() - started) * 1000,
            "message": f"MemoryError: the function needed more than the memory limit of {request.get('memory_bytes')} bytes",
        }
    except SystemExit as exc:
        header = {
            "status": "error",
            "ms": (time.perf_counter() - started) * 1000,
            "message": f"the function called sys.exit({short_repr(exc.code) if exc.code is not None else ''}) instead of returning",
            "details": {"exception_type": "SystemExit", "traceback": trimmed_traceback(exc)},
        }
    except BaseException as exc:
        header = {
            "status": "error",
            "ms": (time.perf_counter() - started) * 1000,
            "message": exception_message(exc),
            "details": {
                "exception_type": type(exc).__name__,
                "exception_message": str(exc),
                "traceback": trimmed_traceback(exc),
            },
        }
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            pass
    # One header line, then the return value's JSON as is: the parent forwards it without parsing it.
    write_all(res_w, json.dumps(header).encode("utf-8") + b"\n" + body)
    os._exit(0)


# ---------------------------------------------------------------------------------------------- the parent


class Case:
    __slots__ = ("id", "pid", "request", "fds", "result", "stdout", "stderr", "out_total", "err_total",
                 "deadline", "started", "killed_for", "case_dir", "exit_status")

    def __init__(self, case_id, request):
        self.id = case_id
        self.request = request
        self.result = bytearray()
        self.stdout = bytearray()
        self.stderr = bytearray()
        self.out_total = 0
        self.err_total = 0
        self.killed_for = None
        self.exit_status = None


class Harness:
    def __init__(self, fn, work_dir):
        self.fn = fn
        self.work_dir = work_dir
        self.selector = selectors.DefaultSelector()
        self.cases = {}  # id -> Case
        self.by_pid = {}
        self.outbox = []
        self.inbuf = b""
        self.own_fds = {PROTO_IN, PROTO_OUT}
        # SIGCHLD wakes the selector through a pipe; children are reaped with waitpid(-1, WNOHANG).
        self.wake_r, self.wake_w = os.pipe()
        for fd in (self.wake_r, self.wake_w):
            os.set_blocking(fd, False)
            os.set_inheritable(fd, False)
        self.own_fds.update((self.wake_r, self.wake_w))
        signal.set_wakeup_fd(self.wake_w, warn_on_full_buffer=False)
        signal.signal(signal.SIGCHLD, lambda *_: None)
        self.selector.register(PROTO_IN, selectors.EVENT_READ, ("in", None))
        self.selector.register(self.wake_r, selectors.EVENT_READ, ("wake", None))
        try:
            self.own_fds.add(self.selector.fileno())
        except (AttributeError, ValueError):
            pass
        self.input_open = True

    def start_case(self, request):
        case = Case(request["id"], request)
        case.case_dir = os.path.join(self.work_dir, f"case-{case.id}")
        res_r, res_w = os.pipe()
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        case.fds = {res_r: "res", out_r: "out", err_r: "err"}
        close_in_child = set(self.own_fds)
        close_in_child.update(case.fds)
        for other in self.cases.values():
            close_in_child.update(other.fds)
        case.started = time.monotonic()
        case.deadline = case.started + request.get("wall_ms", 10_000) / 1000
        pid = os.fork()
        if pid == 0:
            run_child(self.fn, request, res_w, out_w, err_w, case.case_dir, close_in_child)
        for fd in (res_w, out_w, err_w):
            os.close(fd)
        try:
            os.setpgid(pid, pid)  # also done in the child; whichever runs first wins the race
        except OSError:
            pass
        case.pid = pid
        self.cases[case.id] = case
        self.by_pid[pid] = case
        for fd in case.fds:
            os.set_blocking(fd, False)
            self.selector.register(fd, selectors.EVENT_READ, ("pipe", case))

    def read_pipe(self, case, fd):
        kind = case.fds.get(fd)
        if kind is None:
            return
        while True:
            try:
                chunk = os.read(fd, 65536)
            except BlockingIOError:
                return
            except OSError:
                chunk = b""
            if not chunk:
                self.selector.unregister(fd)
                os.close(fd)
                del case.fds[fd]
                return
            if kind == "res":
                case.result += chunk
            else:
                cap = case.request.get("output_bytes", 1 << 20)
                if kind == "out":
                    case.out_total += len(chunk)
                    keep = cap - len(case.stdout)
                    if keep > 0:
                        case.stdout += chunk[:keep]
                    over = case.out_total > cap
                else:
                    case.err_total += len(chunk)
                    keep = cap - len(case.stderr)
                    if keep > 0:
                        case.stderr += chunk[:keep]
                    over = case.err_total > cap
                if over and case.killed_for is None:
                    case.killed_for = "output_stdout" if kind == "out" else "output_stderr"
                    self.kill_group(case)

    def kill_group(self, case):
        for target in (lambda: os.killpg(case.pid, signal.SIGKILL), lambda: os.kill(case.pid, signal.SIGKILL)):
            try:
                target()
            except OSError:
                pass

    def reap(self):
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            case = self.by_pid.pop(pid, None)
            if case is not None:
                case.exit_status = status
                self.finish(case)

    def finish(self, case):
        for fd in list(case.fds):
            self.read_pipe(case, fd)
        # Whatever the case started and left behind goes with it.
        try:
            os.killpg(case.pid, signal.SIGKILL)
        except OSError:
            pass
        for fd in list(case.fds):
            self.selector.unregister(fd)
            os.close(fd)
        case.fds = {}
        shutil.rmtree(case.case_dir, ignore_errors=True)
        del self.cases[case.id]
        self.outbox.append(self.reply(case))

    def reply(self, case):
        cap = case.request.get("output_bytes", 1 << 20)
        elapsed = (time.monotonic() - case.started) * 1000
        common = {
            "id": case.id,
            "stdout": case.stdout.decode("utf-8", "replace"),
            "stderr": case.stderr.decode("utf-8", "replace"),
        }
        if case.killed_for == "timeout":
            return self.encode(common, {
                "status": "timeout", "ms": elapsed,
                "message": f"the call did not return within {case.request.get('wall_ms')} ms; its process was killed",
            })
        if case.killed_for in ("output_stdout", "output_stderr"):
            stream = "stdout" if case.killed_for == "output_stdout" else "stderr"
            return self.encode(common, {
                "status": "output_limit", "ms": elapsed,
                "message": f"the function wrote more than {cap} bytes to {stream}; its process was killed",
            })
        newline = case.result.find(b"\n")
        if newline >= 0:
            try:
                header = json.loads(case.result[:newline])
            except ValueError:
                header = None
            if header is not None:
                header.update(common)
                body = bytes(case.result[newline + 1:])
                if header.get("status") == "ok" and body:
                    return json.dumps(header).encode("utf-8")[:-1] + b',"value":' + body + b"}\n"
                if header.get("status") == "ok":
                    header.update(status="error", message="the case process ended while sending the return value")
                return (json.dumps(header) + "\n").encode("utf-8")
        return self.encode(common, {"status": "error", "ms": elapsed, **self.abnormal_end(case)})

    def abnormal_end(self, case):
        status = case.exit_status
        if status is not None and os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else str(sig)
            if sig == signal.SIGXCPU:
                return {
                    "status": "timeout",
                    "message": f"the call used more than {case.request.get('cpu_ms')} ms of CPU time; its process was killed",
                }
            return {
                "message": f"the case process was killed by signal {name} before the function returned",
                "details": {"signal": name},
            }
        code = os.WEXITSTATUS(status) if status is not None else None
        return {
            "message": f"the case process exited with code {code} before the function returned (did it call os._exit?)",
            "details": {"exit_code": code},
        }

    @staticmethod
    def encode(common, fields):
        return (json.dumps({**fields, **common}) + "\n").encode("utf-8")

    def read_requests(self):
        try:
            chunk = os.read(PROTO_IN, 1 << 20)
        except BlockingIOError:
            return
        if not chunk:
            self.input_open = False
            self.selector.unregister(PROTO_IN)
            return
        self.inbuf += chunk
        *lines, self.inbuf = self.inbuf.split(b"\n")
        for line in lines:
            if not line.strip():
                continue
            request = json.loads(line)
            try:
                self.start_case(request)
            except OSError as exc:  # fork or pipe failed (process or fd limits): the case, not the harness, fails
                self.outbox.append(self.encode({"id": request["id"], "stdout": "", "stderr": ""}, {
                    "status": "error", "ms": 0,
                    "message": f"the harness could not start the case: {exception_message(exc)}",
                }))

    def serve(self):
        os.set_blocking(PROTO_IN, False)
        while self.input_open or self.cases:
            if not self.input_open:
                # The runner is gone: nobody waits for the running cases.
                for case in list(self.cases.values()):
                    self.kill_group(case)
            timeout = None
            if self.cases:
                nearest = min(c.deadline for c in self.cases.values() if c.killed_for is None) if any(
                    c.killed_for is None for c in self.cases.values()) else None
                if nearest is not None:
                    timeout = max(0.0, nearest - time.monotonic())
            for key, _ in self.selector.select(timeout):
                kind, case = key.data
                if kind == "in":
                    self.read_requests()
                elif kind == "wake":
                    try:
                        while os.read(self.wake_r, 4096):
                            pass
                    except BlockingIOError:
                        pass
                elif kind == "pipe" and case.id in self.cases:
                    self.read_pipe(case, key.fd)
            self.reap()
            now = time.monotonic()
            for case in list(self.cases.values()):
                if case.killed_for is None and now >= case.deadline:
                    case.killed_for = "timeout"
                    self.kill_group(case)
            if self.outbox:
                data = b"".join(self.outbox)
                self.outbox = []
                write_all(PROTO_OUT, data)


def main():
    if len(sys.argv) != 3:
        send({"op": "load_error", "kind": "usage", "message": "usage: function_harness.py <entry_file> <function_name>"})
        return 2
    entry_file, function_name = sys.argv[1], sys.argv[2]
    fn, error = load_function(entry_file, function_name)
    if error is not None:
        error.update({"op": "load_error", **import_output})
        send(error)
        return 0
    signature, signature_error = describe_signature(fn, function_name)
    send({"op": "ready", "signature": signature, "signature_error": signature_error,
          "import_stdout": import_output["stdout"], "import_stderr": import_output["stderr"], "pid": os.getpid()})
    Harness(fn, os.getcwd()).serve()
    return 0


if __name__ == "__main__":
    sys.exit(main())
