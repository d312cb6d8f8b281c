"""skillrig sample harness: runs fn(*args) once per case in a forked child and reports what the call did.

Usage: python3 -S sample_harness.py <entry_file> <function_name> [<spares>]   (-S: see add_site_paths)
       python3 -S sample_harness.py --main <entry_file> [<spares>]   (a script or cli: see "main programs" below)

Trust: everything in this file runs inside the sandbox next to the deliverable and is treated by the runner as
untrusted. It reports data, never a verdict: how the call ended, the return value's JSON text, the prints. The
runner alone turns that into a status and compares the value with expected values that never enter the sandbox.
What this file does to stay out of the deliverable's reach (private protocol fds, not dumpable, the import in the
fork server only, a subreaper that kills what a case left behind) is hardening, not the basis of a verdict.

Protocol (the harness writes only through a private copy of fd 1, so nothing the deliverable prints can corrupt it):
  harness -> runner, first line:  {"op":"ready","signature":{...}|null,"signature_error":..., "import_stdout":..., ...}
                               or {"op":"load_error","kind":..., "message":..., "traceback":...}
  runner -> harness, one line per case:
      {"id":N,"wall_ms":..,"cpu_ms":..,"time_ms":..,"disk_bytes":..,"disk_entries":..,"memory_bytes":..,"output_bytes":..,
       "value_bytes":..,["more":M,]"args":<JSON text of input>}
      (time_ms: the case's time limit, in CPU time of its processes together; wall_ms: the wall-clock backstop;
      cpu_ms: each process's own RLIMIT_CPU; disk_bytes/disk_entries: what its folder (and the pair's TMPDIR) may hold)
      (more: how many cases the runner will still send after this one, a hint that spares no fork for a case that
      never comes; without it a spare is forked for every case)
      The runner may send a sample's cases as one batch: the harness runs at most <spares> of them at once, in the
      order they came, each in its own fork with its own limits; the others wait for a free slot.
  harness -> runner, as each case starts (leaves the queue for its fork):  {"started":N}
      (the runner's deadline for the case runs from here: a case that waited behind a slow one keeps its own time)
      (args is the task file's own JSON text, read here by json.loads: 3.0 stays a float, 2**70 stays exact)
  harness -> runner, one frame per case: a JSON header line, then value_len + stdout_len + stderr_len raw bytes:
      {"id":N,"end":"returned"|"raised"|"unencodable"|"exited"|"signaled"|"killed"|"failed_to_start",
       "ms":..,"value_len":..,"stdout_len":..,"stderr_len":.., ...what the end carries (see reply_header)}
  EOF on stdin: the harness kills every case still running and exits.

Processes: the harness (holds the runner's pipes, never imports the deliverable) forks the fork server first; the
fork server imports the module, reports its signature, and forks a child per case ("spares", forked ahead of need,
each waiting for its case on a pipe; their pipe ends go to the harness over a Unix socket with SCM_RIGHTS). The
child inherits the imported module as it was after import (copy-on-write), so whatever one case does to module
state dies with its child. Each child runs in its own process group and its own sub-folder of the working folder,
with stdout/stderr on pipes of their own and RLIMIT_AS/RLIMIT_CPU set to the case's limits by the harness (prlimit:
not by the child, which a module could stop at import). The fork server is a
child subreaper: a process a case detaches (setsid, double fork) is re-parented to it and killed when the case
ends, before the harness answers for that case.
"""

import importlib.machinery
import importlib.util
import inspect
import io
import json
import os
import resource
import select
import selectors
import shutil
import signal
import _signal
import socket
import struct
import sys
import time
import traceback

HARNESS_FILE = os.path.abspath(__file__)
# Kept of a traceback: the innermost frames, where the bug usually is.
TRACEBACK_FRAMES = 30
REPR_CHARS = 300

# The protocol keeps private copies of fds 0 and 1; the real fds 0/1 point at /dev/null in the parent and at the
# case's pipes in a child, so a deliverable that prints (even from C or a subprocess) never touches the protocol.
# Taken in main(), not at import: the shared sample host (sample_host.py) imports this file once and runs main() in each
# sample's process, with that sample's pipes on fds 0 and 1.
PROTO_IN = PROTO_OUT = DEVNULL = -1


def take_protocol_fds():
    global PROTO_IN, PROTO_OUT, DEVNULL
    PROTO_IN = os.dup(0)
    PROTO_OUT = os.dup(1)
    DEVNULL = os.open(os.devnull, os.O_RDWR)
    os.dup2(DEVNULL, 0)
    os.dup2(DEVNULL, 1)
    for fd in (PROTO_IN, PROTO_OUT, DEVNULL):
        os.set_inheritable(fd, False)
    # Not dumpable: a case (same uid) cannot open /proc/<harness>/fd/* to reach the runner's pipes or ptrace it.
    # Inherited by the fork server and every case child; a deliverable can only undo it for its own process.
    prctl(PR_SET_DUMPABLE, 0)


PR_SET_DUMPABLE = 4
PR_SET_CHILD_SUBREAPER = 36


_prctl = []  # libc's prctl, looked up once: a process that forks often should not build ctypes objects per call


def prctl(option, value):
    """prctl(2) through ctypes; False where it is not available (the hardening is then skipped, never faked)."""
    try:
        if not _prctl:
            import ctypes

            _prctl.append(ctypes.CDLL(None, use_errno=True).prctl)
        return _prctl[0](option, value, 0, 0, 0) == 0
    except Exception:
        return False



# What a header line of a reply frame may carry besides the sections (bounded: the runner caps header lines).
MESSAGE_CHARS = 2000
TRACEBACK_CHARS = 16000
# The longest result header line a case child may send (its fields are clipped to the sizes above).
HEADER_BYTES = 64 * 1024
# What the harness forwards of a child's result header, per way the call ended; anything else is dropped.
CHILD_FIELDS = {
    "returned": (),
    "raised": ("exception_type", "exception_message", "traceback", "exit_code"),
    "unencodable": ("return_type", "return_repr", "reason"),
    "failed_to_start": ("message",),
}
# How often the CPU time and the disk use of running cases are sampled (see Harness.check_usage).
USAGE_TICK_SECONDS = 0.1
try:
    CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
except (ValueError, OSError):
    CLOCK_TICKS = 100


def send(obj):
    write_all(PROTO_OUT, (json.dumps(obj) + "\n").encode("utf-8"))


def write_all(fd, data):
    """Writes all of `data`, waiting while `fd` is full: in the shared host the runner's channel is one socket for
    both directions, so the non-blocking reads of PROTO_IN make PROTO_OUT non-blocking too."""
    view = memoryview(data)
    while view:
        try:
            written = os.write(fd, view)
        except BlockingIOError:
            select.select([], [fd], [])
            continue
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


def add_site_paths():
    """Gives sys.path what the interpreter's site step would give it, without running start-up code.

    The harness and the shared host start with -S: the site step may run code (the `import` lines of .pth files,
    sitecustomize, usercustomize) that imports modules into the process that forks every case, and each module it
    brings is paid again in each case (on one machine a .pth line imported threading and random, whose fork hooks
    cost every case about 90 page faults). Here site's own main() runs with those three replaced: the site-packages
    folders (user site included where Python enables it, a venv's too) and the folders .pth files name are added as
    Python would add them; the code is not run. A deliverable imports what `python3` could import."""
    if not sys.flags.no_site or "site" in sys.modules:
        return
    import site

    def add_pth_paths(sitedir, name, known_paths):
        try:
            with open(os.path.join(sitedir, name), encoding="utf-8", errors="replace") as pth:
                lines = pth.read().splitlines()
        except OSError:
            return known_paths
        for line in lines:
            if not line.strip() or line.startswith("#") or line.startswith(("import ", "import\t")):
                continue
            folder, folder_case = site.makepath(sitedir, line.rstrip())
            if folder_case not in known_paths and os.path.exists(folder):
                sys.path.append(folder)
                known_paths.add(folder_case)
        return known_paths

    site.addpackage = add_pth_paths
    site.execsitecustomize = site.execusercustomize = site.enablerlcompleter = lambda: None
    site.main()



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


# ---------------------------------------------------------------------------------------------- main programs
#
# A main program (the script and cli types) is a Python file run as `python3 <file> argv...` would run it. It is read
# and compiled once, in the fork server (nothing of it runs at load); each case is a fork that writes the case's files
# into a fresh folder of its own, puts the case's stdin on fd 0, and executes the code object as a real `__main__`
# module, then ends as the interpreter would (non-daemon threads joined, atexit handlers run, stdio flushed) with
# the program's exit status as the child's own. What differs from a fresh interpreter: site's start-up code
# (sitecustomize, usercustomize, .pth import lines) does not run, and the modules the harness imported are already
# in sys.modules.


class MainProgram:
    __slots__ = ("code", "entry_file")

    def __init__(self, code, entry_file):
        self.code = code
        self.entry_file = entry_file


def load_main(entry_file):
    """Reads and compiles the program once. Returns (MainProgram, None) or (None, load_error).

    A load error carries `exit_code` and, in `traceback`, the text `python3 <file>` would print on stderr, so the
    runner can answer every case as that run would have ended."""
    try:
        with open(entry_file, "rb") as f:
            source = f.read()
    except OSError as exc:
        return None, {
            "kind": "import_error",
            "message": f"cannot read {os.path.basename(entry_file)}: {exc.strerror or exc}",
            "traceback": f"python3: can't open file {entry_file!r}: [Errno {exc.errno}] {exc.strerror}\n",
            "exit_code": 2,
        }
    try:
        # dont_inherit: the harness's own future statements are not the program's.
        code = compile(source, entry_file, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:
        if isinstance(exc, SyntaxError):
            where = f"{os.path.basename(entry_file)} line {exc.lineno}" if exc.lineno else os.path.basename(entry_file)
            message = f"{type(exc).__name__} in {where}: {exc.msg}"
            printed = "".join(traceback.format_exception_only(type(exc), exc))
        else:  # null bytes in the source (Python 3.11 raises ValueError from compile(); `python3 file` a SyntaxError)
            message = f"SyntaxError in {os.path.basename(entry_file)}: source code cannot contain null bytes"
            printed = "SyntaxError: source code cannot contain null bytes\n"
        return None, {"kind": "syntax_error", "message": message, "traceback": printed, "exit_code": 1}
    # sys.path[0] is the program's folder, as for `python3 <file>`; the harness's own folder is not on the path.
    harness_dir = os.path.dirname(HARNESS_FILE)
    sys.path[:] = [os.path.dirname(entry_file)] + [p for p in sys.path if p and p != harness_dir]
    # Exit handlers registered by what the harness imported are not the program's.
    import atexit

    atexit._clear()
    return MainProgram(code, entry_file), None


def safe_case_path(path):
    """The parts of a case file's relative path, or None when it is not a plain relative path inside the folder
    (the runner checked it already: packages/deliverable-kit/src/process/safe-relative-path.ts)."""
    if not isinstance(path, str) or not path or path.startswith("/") or "\\" in path or "\0" in path:
        return None
    parts = path.split("/")
    if any(part in ("", ".", "..") for part in parts):
        return None
    return parts


def write_case_files(folder_fd, files):
    """Writes the case's input files into its fresh folder, never following a link (each folder opened with
    O_NOFOLLOW relative to its parent, each file created with O_EXCL)."""
    for path, text in files.items():
        parts = safe_case_path(path)
        if parts is None or not isinstance(text, str):
            raise ValueError(f"not a safe relative path with text content: {path!r}")
        dir_fd = os.dup(folder_fd)
        try:
            for part in parts[:-1]:
                try:
                    os.mkdir(part, 0o755, dir_fd=dir_fd)
                except FileExistsError:
                    pass
                next_fd = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=dir_fd)
                os.close(dir_fd)
                dir_fd = next_fd
            fd = os.open(parts[-1], os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644, dir_fd=dir_fd)
            try:
                write_all(fd, text.encode("utf-8", "surrogateescape"))
            finally:
                os.close(fd)
        finally:
            os.close(dir_fd)


def stdin_fd(data):
    """A descriptor that reads `data` and then end of file: a memfd (no pipe buffer to fill), else a temp file."""
    try:
        fd = os.memfd_create("stdin", os.MFD_CLOEXEC)
    except (AttributeError, OSError):
        import tempfile

        fd, name = tempfile.mkstemp()
        os.unlink(name)
    write_all(fd, data)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def fresh_stdio():
    """sys.stdin/stdout/stderr made again over fds 0, 1 and 2, as a starting interpreter makes them (same encoding
    and error handlers; stderr line-buffered; nothing buffered from the process this was forked from)."""
    template = sys.__stdout__ or sys.stdout
    encoding = getattr(template, "encoding", None) or "utf-8"
    errors = getattr(template, "errors", None) or "strict"

    def stream(fd, mode, errors, line_buffering):
        raw = io.FileIO(fd, mode, closefd=False)
        buffered = io.BufferedReader(raw) if mode == "r" else io.BufferedWriter(raw)
        text = io.TextIOWrapper(buffered, encoding=encoding, errors=errors, line_buffering=line_buffering)
        text.mode = mode
        return text

    tty = os.isatty(1)
    sys.stdin = sys.__stdin__ = stream(0, "r", errors, False)
    sys.stdout = sys.__stdout__ = stream(1, "w", errors, tty)
    sys.stderr = sys.__stderr__ = stream(2, "w", "backslashreplace", True)


def program_traceback(exc):
    """The exception's traceback without the harness's own frames (the ones above the program's code), also set as
    its __traceback__ (the interpreter's excepthook prints the exception's own)."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename == HARNESS_FILE:
        tb = tb.tb_next
    exc.__traceback__ = tb
    return tb


def exit_status_of(exc):
    """What `python3 <file>` exits with for this SystemExit: None -> 0, an int -> it, anything else printed -> 1."""
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    try:
        sys.stderr.write(f"{code}\n")
    except BaseException:
        pass
    return 1


def finish_interpreter(status):
    """What Py_FinalizeEx does before the process ends: non-daemon threads joined, atexit handlers run, stdio
    flushed (a flush that fails is exit status 120, as in CPython)."""
    threading = sys.modules.get("threading")
    if threading is not None:
        try:
            threading._shutdown()
        except BaseException:
            pass
    import atexit

    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None and not stream.closed:
                stream.flush()
        except BaseException:
            if stream is sys.stdout:
                status = 120
    return status


def run_main_case(program, request):
    """In a case child, in the case's fresh folder: runs the program as `__main__` and exits with its status. Never
    returns. The child's exit status is the program's: the harness reports it as `exited`."""
    import builtins
    import types

    module = types.ModuleType("__main__")
    module.__file__ = program.entry_file
    module.__builtins__ = builtins
    module.__cached__ = None
    # As python3 <file> sets it (inspect and pkgutil read it); __spec__ stays None, as for a file run as a script.
    module.__loader__ = importlib.machinery.SourceFileLoader("__main__", program.entry_file)
    sys.modules["__main__"] = module
    sys.argv = [program.entry_file, *request.get("argv", [])]
    status = 0
    try:
        try:
            exec(program.code, module.__dict__)
        except SystemExit as exc:
            status = exit_status_of(exc)
        except KeyboardInterrupt as exc:
            sys.excepthook(type(exc), exc, program_traceback(exc))
            status = -signal.SIGINT
        except BaseException as exc:
            # Printed as the interpreter prints it (the program's own sys.excepthook, if it set one).
            try:
                sys.excepthook(type(exc), exc, program_traceback(exc))
            except BaseException:
                traceback.print_exception(type(exc), exc, program_traceback(exc))
            status = 1
        status = finish_interpreter(status)
    except SystemExit as exc:  # raised by an atexit handler or a thread join: still ends the program
        status = exit_status_of(exc)
    except BaseException:
        status = 1 if status == 0 else status
    # Whatever the program started and left running ends before its end is reported (see run_spare).
    try:
        os.setpgid(0, os.getpgid(os.getppid()))
        os.killpg(os.getpid(), signal.SIGKILL)
    except OSError:
        pass
    if status < 0:  # an uncaught KeyboardInterrupt: the interpreter ends by the signal itself
        _signal.signal(-status, _signal.SIG_DFL)
        os.kill(os.getpid(), -status)
    os._exit(status)


# ---------------------------------------------------------------------------------------------- a case, in the child


def send_result(res_w, header, body=b""):
    """One header line (with the body's length, so the parent knows when it has it all), then the body as is."""
    header["len"] = len(body)
    write_all(res_w, json.dumps(header).encode("utf-8") + b"\n" + body)


def clip(text, limit):
    return text if len(text) <= limit else text[: limit - 3] + "..."


def clear_folder(path):
    for entry in os.scandir(path):
        if entry.is_dir(follow_symlinks=False):
            shutil.rmtree(entry.path, ignore_errors=True)
        else:
            try:
                os.unlink(entry.path)
            except OSError:
                pass


def run_spare(fn, req_r, res_w, out_w, err_w, close_fds, case_dir, make_dir):
    """A forked child: waits for its one case, runs it, reports what the call did, exits. Never returns."""
    request = None
    try:
        os.setpgid(0, 0)
        main_program = isinstance(fn, MainProgram)
        # The case's own folder, ready before the case arrives: an emptied one left by an earlier case, or a new one
        # (making and removing folders is slow on some disks, so empty ones are reused). A main case's folder is made
        # only when its case arrives (below), under a name nobody could see before: fresh, never reused.
        if main_program:
            pass
        elif make_dir:
            os.mkdir(case_dir)
            os.chdir(case_dir)
        else:
            os.chdir(case_dir)
        # _signal, not signal: signal.py's wrappers go through enum conversions, and in a fresh fork every object
        # they touch is a copy-on-write page fault (4 ms of a case's ~30 on a VM where a fault costs ~25 us).
        _signal.set_wakeup_fd(-1)
        _signal.signal(_signal.SIGCHLD, _signal.SIG_DFL)
        os.dup2(out_w, 1)
        os.dup2(err_w, 2)
        os.dup2(DEVNULL, 0)
        for fd in close_fds:
            try:
                os.close(fd)
            except OSError:
                pass
        data = bytearray()
        while not data.endswith(b"\n"):
            chunk = os.read(req_r, 1 << 20)
            if not chunk:
                os._exit(0)  # the harness retired this spare (or is gone)
            data += chunk
        os.close(req_r)
        request = json.loads(data.decode("utf-8"))  # str: json.loads of bytes first sniffs the encoding
        if main_program:
            os.mkdir(case_dir, 0o700)
            folder_fd = os.open(case_dir, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
            try:
                os.fchdir(folder_fd)
                write_case_files(folder_fd, request.get("files") or {})
            finally:
                os.close(folder_fd)
            stdin = stdin_fd(str(request.get("stdin") or "").encode("utf-8", "surrogateescape"))
            os.dup2(stdin, 0)
            os.close(stdin)
            fresh_stdio()
        else:
            # The folder was made ahead of the case; anything another process of the run put in it meanwhile goes.
            with os.scandir(".") as entries:
                dirty = next(entries, None) is not None
            if dirty:
                clear_folder(".")
        # The case's memory and CPU limits are already set on this process, by the harness (limit_case).
    except MemoryError:
        # Under the case's memory limit the request itself did not fit: the case ran out of memory.
        send_result(res_w, {"end": "raised", "ms": 0, "exception_type": "MemoryError"})
        os._exit(0)
    except BaseException as exc:
        # Reported to the case this spare is given, so a spare that cannot be prepared never shrinks the pool.
        try:
            while request is None:
                chunk = os.read(req_r, 1 << 20)
                if not chunk:
                    os._exit(0)
                if chunk.endswith(b"\n"):
                    break
        except BaseException:
            pass
        send_result(res_w, {"end": "failed_to_start", "ms": 0, "message": clip(f"the harness could not prepare the case: {exception_message(exc)}", MESSAGE_CHARS)})
        os._exit(0)

    if isinstance(fn, MainProgram):
        run_main_case(fn, request)
    run_function_case(fn, request, res_w, case_dir)


def run_function_case(fn, request, res_w, case_dir):
    """In a spare that got its case: calls fn(*args), reports what the call did, exits. Never returns."""
    # Only data about the call goes back: what it returned (as JSON text), or what it raised.
    body = b""
    started = time.perf_counter()
    try:
        value = fn(*request["args"])
        ms = (time.perf_counter() - started) * 1000
        try:
            # allow_nan: NaN and infinities are Python floats a function may return; the runner reads Python's tokens.
            body = json.dumps(value).encode("utf-8")
            header = {"end": "returned", "ms": ms}
        except BaseException as exc:
            body = b""
            header = {
                "end": "unencodable",
                "ms": ms,
                "return_type": clip(type(value).__name__, 200),
                "return_repr": short_repr(value),
                "reason": clip(exception_message(exc), MESSAGE_CHARS),
            }
    except MemoryError:
        # Nothing more is built under the memory limit than this: no traceback.
        header = {"end": "raised", "ms": (time.perf_counter() - started) * 1000, "exception_type": "MemoryError"}
    except BaseException as exc:
        header = {
            "end": "raised",
            "ms": (time.perf_counter() - started) * 1000,
            "exception_type": clip(type(exc).__name__, 200),
            "exception_message": clip(exception_message(exc), MESSAGE_CHARS),
            "traceback": clip(trimmed_traceback(exc), TRACEBACK_CHARS),
        }
        if isinstance(exc, SystemExit):
            header["exit_code"] = short_repr(exc.code) if exc.code is not None else ""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            pass
    # Whatever the function started and left running ends before the answer goes out: the child steps into its
    # parent's process group and kills its own, which now holds only what the function spawned.
    try:
        os.setpgid(0, os.getpgid(os.getppid()))
        os.killpg(os.getpid(), signal.SIGKILL)
    except OSError:
        pass  # nothing was left running
    # An empty folder goes back to the pool; one the case wrote into is removed, after the answer went out.
    try:
        with os.scandir(case_dir) as entries:
            header["folder_free"] = next(entries, None) is None
    except OSError:
        header["folder_free"] = False
    # The prints are flushed before the result is sent: when the parent has the whole result, it has every print.
    send_result(res_w, header, body)
    if not header["folder_free"]:
        os.chdir(os.path.dirname(case_dir))  # the function may have changed folder
        shutil.rmtree(case_dir, ignore_errors=True)
    os._exit(0)


# ---------------------------------------------------------------------------------------------- the parent


def limit_case(pid, request):
    """Sets the case's memory and CPU limits on its process from the harness (prlimit), before the case is sent to it.

    From here, not from the child: the child is a fork of the process that imported the deliverable, so a module that
    replaced resource.setrlimit at import would have run its cases without limits. The harness never imports it."""
    memory = request.get("memory_bytes")
    if memory:
        resource.prlimit(pid, resource.RLIMIT_AS, (memory, memory))
    cpu_ms = request.get("cpu_ms")
    if cpu_ms:
        seconds = max(1, -(-cpu_ms // 1000))
        _, hard = resource.prlimit(pid, resource.RLIMIT_CPU)
        soft = seconds if hard == resource.RLIM_INFINITY else min(seconds, hard)
        resource.prlimit(pid, resource.RLIMIT_CPU, (soft, hard))


class ForkServer:
    """The process that forks the spares, so the harness's own loop never stops for a fork.

    It is forked from the harness before anything of the deliverable runs, and it is the only process that imports
    the module (so the process that holds the runner's pipes never runs deliverable code). It is a child
    subreaper: whatever a case detaches (setsid, double fork) is re-parented here and killed when a case ends.
    It talks to the harness over a SOCK_SEQPACKET socket pair:
      server -> harness:  b"r" + JSON                the import's outcome: the "ready" or "load_error" line
      harness -> server:  b"w" + count + folders  fork `count` more spares; these emptied case folders are free again
      server -> harness:  b"s" + pid + folder    a new spare, with its pipe ends [req_w, res_r, out_r, err_r] attached
      server -> harness:  b"x" + pid + status    a child ended (the server is every case child's parent and reaps it)
    When the harness's end closes, the server kills every child it has and exits.
    """

    def __init__(self, fn, sock, work_dir, spares, close_fds):
        self.fn = fn
        self.sock = sock
        self.pid = os.getpid()
        self.work_dir = work_dir
        self.credit = spares
        self.children = set()
        self.forked = 0
        self.folder_prefix = f"case-{os.urandom(4).hex()}-"
        self.free_folders = []
        self.wake_r, self.wake_w = os.pipe()
        for fd in (self.wake_r, self.wake_w):
            os.set_blocking(fd, False)
        # _signal, not signal: signal.py's enum wrappers are pages a process that forks would fault on again.
        _signal.set_wakeup_fd(self.wake_w, warn_on_full_buffer=False)
        _signal.signal(_signal.SIGCHLD, lambda *_: None)
        self.selector = selectors.DefaultSelector()
        self.selector.register(sock.fileno(), selectors.EVENT_READ, "sock")
        self.selector.register(self.wake_r, selectors.EVENT_READ, "wake")
        self.close_in_child = set(close_fds) | {sock.fileno(), self.wake_r, self.wake_w, self.selector.fileno()}

    def fork_spare(self):
        req_r, req_w = os.pipe()
        res_r, res_w = os.pipe()
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        self.forked += 1
        make_dir = not self.free_folders
        if isinstance(self.fn, MainProgram):
            case_dir = os.path.join(self.work_dir, f"case-{os.urandom(8).hex()}")
        elif make_dir:
            case_dir = os.path.join(self.work_dir, f"{self.folder_prefix}{self.forked}")
        else:
            case_dir = self.free_folders.pop()
        pid = os.fork()
        if pid == 0:
            try:
                run_spare(self.fn, req_r, res_w, out_w, err_w, self.close_in_child | {req_w, res_r, out_r, err_r, out_w, err_w}, case_dir, make_dir)
            finally:
                os._exit(70)  # never back into the server's loop, whatever the case raised on its way out
        try:
            os.setpgid(pid, pid)  # also done in the child; whichever runs first wins the race
        except OSError:
            pass
        self.children.add(pid)
        socket.send_fds(self.sock, [b"s" + struct.pack("<i", pid) + os.fsencode(case_dir)], [req_w, res_r, out_r, err_r])
        for fd in (req_r, req_w, res_r, res_w, out_r, out_w, err_r, err_w):
            os.close(fd)

    def serve(self):
        while True:
            # One spare per turn, then a look at the socket and the children without waiting: a case's answer waits
            # for its child's exit (and the sweep after it), so reaping must never queue behind a burst of forks.
            if self.credit > 0:
                self.credit -= 1
                try:
                    self.fork_spare()
                except OSError as exc:  # out of processes or fds: tell the harness, try again on the next request
                    self.sock.send(b"e" + str(exc).encode("utf-8", "replace")[:200])
                    self.credit = 0
            # A bounded wait otherwise: children are reaped even if a SIGCHLD wake-up was lost.
            for key, _ in self.selector.select(0 if self.credit > 0 else 0.05):
                if key.data == "sock":
                    try:
                        message = self.sock.recv(1 << 20)
                    except OSError:
                        message = b""
                    if not message:
                        for pid in self.children:
                            for kill in (os.killpg, os.kill):
                                try:
                                    kill(pid, signal.SIGKILL)
                                except OSError:
                                    pass
                        os._exit(0)
                    self.credit += struct.unpack("<i", message[1:5])[0]
                    if len(message) > 5:
                        self.free_folders.extend(os.fsdecode(f) for f in message[5:].split(b"\0"))
                else:
                    try:
                        while os.read(self.wake_r, 4096):
                            pass
                    except BlockingIOError:
                        pass
            while True:
                try:
                    pid, status, usage = os.wait4(-1, os.WNOHANG)
                except ChildProcessError:
                    break
                if pid == 0:
                    break
                if pid not in self.children:
                    continue  # something a case detached, re-parented here and already killed
                self.children.discard(pid)
                # What the case detached dies before its end is reported (and so before its answer goes out).
                self.kill_orphans()
                # With the CPU time the case's process used, its reaped children's included (exact, from the kernel).
                cpu_ms = (usage.ru_utime + usage.ru_stime) * 1000
                self.sock.send(b"x" + struct.pack("<iid", pid, status, cpu_ms))

    def kill_orphans(self):
        """Kills every process re-parented to this subreaper (not a spare or case child), and their groups, until
        none is left. A bounded number of rounds: a chain that outruns them still dies with the sandbox's tree."""
        own_group = os.getpgrp()
        for _ in range(100):
            orphans = [pid for pid in children_of(self.pid) if pid not in self.children]
            if not orphans:
                return
            for pid in orphans:
                try:
                    group = os.getpgid(pid)
                    if group != own_group:
                        os.killpg(group, signal.SIGKILL)
                except OSError:
                    pass
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            for pid in orphans:
                try:
                    os.waitpid(pid, 0)
                except ChildProcessError:
                    pass


def read_proc_file(path):
    """A /proc file's bytes; raises OSError. os.open, not open(): the io stack's objects would be copy-on-write
    faults in a process that forks often (the fork server, the shared host)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        data = b""
        while True:
            chunk = os.read(fd, 65536)
            if not chunk:
                return data
            data += chunk
    finally:
        os.close(fd)


# -- the one /proc reader of the sandbox's side: the harness, the fork server and the shared host read /proc here


def proc_pids():
    """The pids /proc lists (this pid namespace's, or the host's at weaker levels); [] when it cannot be listed."""
    try:
        return [int(name) for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return []


def proc_stats():
    """(pid, state, parent pid, CPU clock ticks) of every process: its own user and system time, threads included,
    plus the time of the children it reaped. A process gone meanwhile is left out."""
    for pid in proc_pids():
        try:
            stat = read_proc_file(f"/proc/{pid}/stat")
            fields = stat[stat.rfind(b")") + 2 :].split()
            yield pid, fields[0], int(fields[1]), int(fields[11]) + int(fields[12]) + int(fields[13]) + int(fields[14])
        except (OSError, IndexError, ValueError):
            continue


def proc_status_field(pid, key):
    """A field of /proc/<pid>/status (`Uid:`, `CapEff:` ...) as its values; None when it or the process is gone."""
    try:
        status = read_proc_file(f"/proc/{pid}/status")
    except OSError:
        return None
    for line in status.split(b"\n"):
        if line.startswith(key):
            return line.split()[1:]
    return None


def children_of(parent):
    """Pids whose parent is `parent`: the kernel's list of the thread's children where it has one, else from /proc
    (zombies left out)."""
    try:
        return [int(pid) for pid in read_proc_file(f"/proc/self/task/{parent}/children").split()]
    except OSError:
        pass
    return [pid for pid, state, ppid, _ in proc_stats() if ppid == parent and state != b"Z"]


def scan_processes():
    """Every process of this pid namespace: pid -> (parent pid, CPU clock ticks)."""
    return {pid: (ppid, ticks) for pid, _, ppid, ticks in proc_stats()}


def descendants(roots, children):
    """The roots and every process descending from them (by parent pid)."""
    tree = list(roots)
    i = 0
    while i < len(tree):
        tree.extend(children.get(tree[i], ()))
        i += 1
    return tree


def remove_tree(path):
    """Removes a folder the harness's own uid owns, folders the case closed (chmod 000) included."""

    def reopen(function, failed, _):
        try:
            os.chmod(os.path.dirname(failed), 0o700)
            if os.path.isdir(failed) and not os.path.islink(failed):
                os.chmod(failed, 0o700)
                shutil.rmtree(failed, onerror=reopen)
            else:
                function(failed)
        except OSError:
            pass

    shutil.rmtree(path, onerror=reopen)


def folder_usage(path, cap_bytes, cap_entries):
    """(allocated bytes, entries) under `path`, blocks counted (a sparse file counts what it holds); stops once past
    a cap."""
    used = 0
    entries = 0
    pending = [path]
    while pending and used <= cap_bytes and entries <= cap_entries:
        folder = pending.pop()
        try:
            listing = list(os.scandir(folder))
        except PermissionError:
            # A folder the case closed (chmod 000) still counts: the harness runs as its owner and opens it again.
            try:
                os.chmod(folder, 0o700)
                listing = list(os.scandir(folder))
            except OSError:
                continue
        except OSError:
            continue
        for entry in listing:
            try:
                stat = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            entries += 1
            used += stat.st_blocks * 512
            if entry.is_dir(follow_symlinks=False):
                pending.append(entry.path)
    return used, entries


class Child:
    """A forked child: a spare (no case yet) or running one case."""
    __slots__ = ("pid", "req_w", "fds", "case_dir", "id", "request", "result", "header", "stdout", "stderr", "out_total",
                 "err_total", "deadline", "started", "killed_for", "exit_status", "replied", "folder_free", "cpu_ms", "next_check")

    def __init__(self, pid, req_w, fds, case_dir):
        self.pid = pid
        self.req_w = req_w
        self.case_dir = case_dir
        self.fds = fds  # read end -> "res" | "out" | "err"
        self.id = None
        self.request = None
        self.result = bytearray()
        self.header = None
        self.stdout = bytearray()
        self.stderr = bytearray()
        self.out_total = 0
        self.err_total = 0
        self.killed_for = None
        self.exit_status = None
        self.replied = False
        self.folder_free = False
        self.cpu_ms = 0.0  # the most CPU time its processes were seen to have used
        self.next_check = 0.0  # when its usage is next sampled


class Harness:
    def __init__(self, entry_file, function_name, work_dir, spares):
        """function_name None: a main program (the file run as __main__ per case)."""
        self.work_dir = work_dir
        self.main_program = function_name is None
        self.left_folders = []  # main cases' folders, as they left them, until the next case starts
        self.selector = selectors.DefaultSelector()
        self.spares = []  # forked children waiting for a case
        self.running = {}  # case id -> Child, until it ended
        self.by_pid = {}  # every live child
        self.outbox = []
        self.inbuf = b""
        self.input_open = True
        self.server_error = None
        self.waiting = []  # (line, request) of cases sent and not started yet, in the order they came
        self.slots = max(1, spares)  # cases running at once; a batch's other cases wait in `waiting`
        self.more = None  # cases the runner said are still to come after the last one it sent (None: not said)
        self.forking = max(1, spares)  # spares the fork server was asked for and has not sent yet (its first ones)
        self.credit = 0  # spares to ask the fork server for, sent once per loop turn
        self.fork_failed = False  # the last fork failed: no new spare is asked for until a case arrives or ends
        self.free_folders = []  # emptied case folders to hand back to the fork server
        # The pair's own temp folder, beside its cases' folder (the shared host's work/<pair>/tmp): on disk, shared by
        # the pair's cases, so what is in it counts against each running case's disk cap. A TMPDIR elsewhere is not
        # the pair's to count, nor the working folder itself (a harness of its own, where the sandbox makes TMPDIR its
        # cwd: the sandbox caps that folder as a whole).
        tmp = os.path.abspath(os.environ.get("TMPDIR") or "/")
        work = os.path.abspath(work_dir)
        self.pair_tmp = tmp if tmp != work and os.path.dirname(tmp) == os.path.dirname(work) else None
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        # SIGCHLD tells the harness its fork server died (its only child): through a pipe, into the selector.
        self.wake_r, self.wake_w = os.pipe()
        for fd in (self.wake_r, self.wake_w):
            os.set_blocking(fd, False)
        # _signal, not signal: signal.py's enum wrappers are pages a process that forks would fault on again.
        _signal.set_wakeup_fd(self.wake_w, warn_on_full_buffer=False)
        _signal.signal(_signal.SIGCHLD, lambda *_: None)
        self.server_pid = os.fork()
        if self.server_pid == 0:
            ours.close()
            try:
                # The server keeps none of the harness's ends: were the harness to die, the protocol pipe must close;
                # and the deliverable, imported only here, never holds the runner's pipes.
                for fd in (PROTO_IN, PROTO_OUT, self.wake_r, self.wake_w, self.selector.fileno()):
                    os.close(fd)
                prctl(PR_SET_CHILD_SUBREAPER, 1)
                fn = import_and_report(theirs, entry_file, function_name)
                if fn is not None:
                    ForkServer(fn, theirs, work_dir, spares, set()).serve()
            finally:
                os._exit(1)
        theirs.close()
        self.sock = ours
        self.load_message = self.await_import()
        self.sock.setblocking(False)
        self.selector.register(PROTO_IN, selectors.EVENT_READ, ("in", None))
        self.selector.register(self.wake_r, selectors.EVENT_READ, ("wake", None))
        self.selector.register(self.sock.fileno(), selectors.EVENT_READ, ("server", None))

    def await_import(self):
        """The fork server's first message: the import's outcome, as the line for the runner (or why it is missing)."""
        try:
            message = self.sock.recv(1 << 20)
        except OSError:
            message = b""
        if message[:1] == b"r":
            try:
                return json.loads(message[1:])
            except ValueError:
                pass
        pid, status = os.waitpid(self.server_pid, 0)
        return {"op": "load_error", "kind": "import_error",
                "message": f"the fork server ended while importing the deliverable ({self.server_end(status)})"}

    # -- children

    def from_server(self):
        while True:
            try:
                message, fds, _, _ = socket.recv_fds(self.sock, 4096, 4)
            except BlockingIOError:
                return
            except OSError:
                message, fds = b"", []
            if not message:
                # The socket closes as the server exits: its exit status is (about to be) there.
                self.server_died(self.server_end(os.waitpid(self.server_pid, 0)[1]))
                return
            kind = message[:1]
            if kind == b"s" and (len(fds) != 4 or len(message) < 5):
                for fd in fds:
                    os.close(fd)  # not what the fork server sends: it is not trusted either
            elif kind == b"s":
                pid = struct.unpack("<i", message[1:5])[0]
                req_w, res_r, out_r, err_r = fds
                child = Child(pid, req_w, {res_r: "res", out_r: "out", err_r: "err"}, os.fsdecode(message[5:]))
                for fd in child.fds:
                    os.set_blocking(fd, False)
                    self.selector.register(fd, selectors.EVENT_READ, ("pipe", child))
                self.by_pid[pid] = child
                self.forking = max(0, self.forking - 1)
                if self.input_open:
                    self.spares.append(child)
                else:
                    self.kill_group(child)
            elif kind == b"x" and len(message) == 17:
                pid, status, cpu_ms = struct.unpack("<iid", message[1:17])
                self.ended(pid, status, cpu_ms)
            elif kind == b"e":
                self.server_error = message[1:].decode("utf-8", "replace")[:MESSAGE_CHARS]
                # The server dropped what it was asked for: asked again when a case arrives or ends, not in a loop.
                self.forking = 0
                self.fork_failed = True

    @staticmethod
    def server_end(status):
        if os.WIFSIGNALED(status):
            try:
                return f"signal {signal.Signals(os.WTERMSIG(status)).name}"
            except ValueError:
                return f"signal {os.WTERMSIG(status)}"
        return f"exit code {os.WEXITSTATUS(status)}"

    def server_died(self, how):
        """Without its fork server the harness cannot run cases: it answers what is running and exits."""
        sys.stderr.write(f"sample harness: the fork server ended ({how})\n")
        sys.stderr.flush()
        for child in list(self.by_pid.values()):
            self.kill_group(child)
        for child in self.running.values():
            if not child.replied:
                self.outbox.append(self.frame(child.id, {
                    "end": "failed_to_start", "ms": 0,
                    "message": f"the sample harness lost its fork server ({how}) while this case ran",
                    # The runner runs such a case again on a fresh fork server, alone (one of those running killed it).
                    "fork_server_lost": "ran",
                }))
                child.replied = True
        for _, request in self.waiting:
            self.outbox.append(self.frame(request["id"], {
                "end": "failed_to_start", "ms": 0,
                "message": f"the sample harness lost its fork server ({how}) before this case started",
                "fork_server_lost": "waiting",
            }))
        if self.outbox:
            write_all(PROTO_OUT, b"".join(self.outbox))
        os._exit(3)

    def start_case(self, line):
        request = json.loads(line)
        # The runner sends a main sample's next case once it has read the folders of those before: they go now.
        while self.left_folders:
            remove_tree(self.left_folders.pop())
        more = request.get("more")
        self.more = more if isinstance(more, int) and more >= 0 else None
        self.waiting.append((line, request))
        self.fork_failed = False

    def dispatch(self):
        """Starts waiting cases while a slot and a spare are free, then asks for the spares the cases still to come
        need: no more than run at once, and none for a case that will not come (a fork is the biggest cost of a
        case: a spare nobody uses is a case's worth of CPU thrown away)."""
        while self.waiting and self.spares and len(self.running) < self.slots:
            line, request = self.waiting.pop(0)
            self.assign(self.spares.pop(0), line, request)
        to_come = len(self.waiting) + (self.slots if self.more is None else self.more)
        need = min(self.slots, to_come) - len(self.spares) - self.forking
        if need > 0 and self.input_open and not self.fork_failed:
            self.credit += need
            self.forking += need

    def assign(self, child, line, request):
        child.id = request["id"]
        child.request = request
        child.started = time.monotonic()
        child.deadline = child.started + request.get("wall_ms", 10_000) / 1000
        # The first sample a tick after the start: most cases end before it (their CPU then comes from wait4).
        child.next_check = child.started + USAGE_TICK_SECONDS
        self.running[child.id] = child
        try:
            limit_case(child.pid, request)
        except (OSError, ValueError, TypeError) as exc:
            # Never run a case without its limits: the spare is killed, and the case reported as not started.
            self.outbox.append(self.frame(child.id, {"end": "failed_to_start", "ms": 0, "message": clip(
                f"the harness could not set the case's limits: {exception_message(exc)}", MESSAGE_CHARS)}))
            child.replied = True
            self.close_req(child)
            self.kill_group(child)
            return
        try:
            write_all(child.req_w, line + b"\n")
        except OSError:
            pass  # the spare died; reaping it reports the case
        self.close_req(child)
        self.outbox.append(b'{"started":%d}\n' % child.id)
        if child.result:
            self.check_result(child)

    def close_req(self, child):
        if child.req_w is not None:
            os.close(child.req_w)
            child.req_w = None

    def read_pipe(self, child, fd):
        kind = child.fds.get(fd)
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
                self.close_pipe(child, fd)
                return
            if kind == "res":
                if child.killed_for is None:
                    child.result += chunk
                    # A spare (no case yet) only writes when it failed to prepare; its case, if any comes, reads it.
                    if child.request is not None:
                        self.check_result(child)
                continue
            cap = child.request.get("output_bytes", 1 << 20) if child.request else 0
            if kind == "out":
                child.out_total += len(chunk)
                keep = cap - len(child.stdout)
                if keep > 0:
                    child.stdout += chunk[:keep]
                over = child.out_total > cap
            else:
                child.err_total += len(chunk)
                keep = cap - len(child.stderr)
                if keep > 0:
                    child.stderr += chunk[:keep]
                over = child.err_total > cap
            if over and child.killed_for is None and not child.replied:
                self.kill_for(child, "stdout" if kind == "out" else "stderr")

    def close_pipe(self, child, fd):
        self.selector.unregister(fd)
        os.close(fd)
        del child.fds[fd]

    def check_result(self, child):
        """Reads the child's result as it arrives, within the value cap; the answer goes out once the child ended."""
        if child.header is None:
            newline = child.result.find(b"\n")
            if newline < 0:
                if len(child.result) > HEADER_BYTES:
                    self.kill_for(child, "bad_result")
                return
            try:
                header = json.loads(child.result[:newline])
                if not isinstance(header, dict) or not isinstance(header.get("len"), int):
                    raise ValueError("not a result header")
            except ValueError:
                self.kill_for(child, "bad_result")
                return
            child.header = header
            child.folder_free = header.get("folder_free") is True
            del child.result[: newline + 1]
        if child.header["len"] > child.request.get("value_bytes", 1 << 20):
            self.kill_for(child, "value")

    def kill_for(self, child, reason):
        child.killed_for = reason
        child.result = bytearray()
        self.kill_group(child)

    def kill_group(self, child):
        for kill in (os.killpg, os.kill):
            try:
                kill(child.pid, signal.SIGKILL)
            except OSError:
                pass

    def ended(self, pid, status, cpu_ms=0.0):
        child = self.by_pid.pop(pid, None)
        if child is None:
            return
        self.fork_failed = False
        child.exit_status = status
        child.cpu_ms = max(child.cpu_ms, cpu_ms)
        # A case that ended past its time limit (between two samples) is past it all the same: the count is the
        # kernel's, so the verdict does not depend on when the harness happened to look.
        time_ms = child.request.get("time_ms") if child.request else None
        if time_ms and child.cpu_ms > time_ms and child.killed_for is None and not child.replied:
            child.killed_for = "cpu"
            child.result = bytearray()
        for fd in list(child.fds):
            self.read_pipe(child, fd)
        # Whatever the case started and left behind goes with it (the fork server swept the detached ones).
        try:
            os.killpg(child.pid, signal.SIGKILL)
        except OSError:
            pass
        for fd in list(child.fds):
            self.close_pipe(child, fd)
        self.close_req(child)
        if child.id is None:
            if child in self.spares:
                self.spares.remove(child)
            if self.input_open:
                shutil.rmtree(child.case_dir, ignore_errors=True)  # a spare killed from outside: dispatch replaces it
            return
        complete = child.header is not None and len(child.result) >= child.header["len"]
        clean_exit = complete and child.killed_for is None and os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
        if not child.replied:
            self.outbox.append(self.reply(child))
            child.replied = True
        if self.main_program:
            # A main case's folder is the runner's to read: kept as the case left it until the next case starts.
            self.left_folders.append(child.case_dir)
        elif clean_exit and child.folder_free:
            self.free_folders.append(child.case_dir)
        elif not clean_exit and self.input_open:
            shutil.rmtree(child.case_dir, ignore_errors=True)  # a child that ended early could not tidy up
        del self.running[child.id]

    # -- replies: what the call did, as data; the runner decides what it means

    def reply(self, child):
        frame = self.reply_frame(child)
        if self.main_program and os.path.lexists(child.case_dir):
            # The folder as the case left it (nothing of the case runs any more), for the runner to read.
            newline = frame.index(b"\n")
            header = json.loads(frame[:newline])
            header["folder"] = child.case_dir
            frame = json.dumps(header).encode("utf-8") + frame[newline:]
        return frame

    def reply_frame(self, child):
        elapsed = (time.monotonic() - child.started) * 1000
        if child.killed_for is not None:
            fields = {"end": "killed", "reason": child.killed_for, "ms": elapsed, "cpu_ms": round(child.cpu_ms, 3)}
            return self.frame(child.id, fields, b"", child.stdout, child.stderr)
        header = child.header
        if header is not None and len(child.result) >= header["len"]:
            fields = {"end": header.get("end"), "ms": header.get("ms", elapsed)}
            for key in CHILD_FIELDS.get(header.get("end"), ()):
                if key in header:
                    fields[key] = header[key]
            body = bytes(child.result[: header["len"]]) if header.get("end") == "returned" else b""
            return self.frame(child.id, fields, body, child.stdout, child.stderr)
        status = child.exit_status
        if status is not None and os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            try:
                name = signal.Signals(sig).name
            except ValueError:
                name = str(sig)
            return self.frame(child.id, {"end": "signaled", "signal": name, "ms": elapsed}, b"", child.stdout, child.stderr)
        code = os.WEXITSTATUS(status) if status is not None else None
        return self.frame(child.id, {"end": "exited", "exit_code": code, "ms": elapsed}, b"", child.stdout, child.stderr)

    @staticmethod
    def frame(case_id, fields, value=b"", stdout=b"", stderr=b""):
        """A reply: the header line (with the sections' lengths), then the value's JSON text, stdout and stderr as is."""
        header = {**fields, "id": case_id, "value_len": len(value), "stdout_len": len(stdout), "stderr_len": len(stderr)}
        return json.dumps(header).encode("utf-8") + b"\n" + bytes(value) + bytes(stdout) + bytes(stderr)

    # -- the loop

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
            if line.strip():
                self.start_case(line)

    def next_timeout(self):
        deadlines = [min(c.deadline, c.next_check) for c in self.running.values() if not c.replied and c.killed_for is None]
        return max(0.0, min(deadlines) - time.monotonic()) if deadlines else None

    def check_usage(self):
        """Samples what each running case's processes used: CPU time (its tree by parent pids, plus what the sample
        detached, which the fork server adopts: charged to every running case of this sample, its own doing) against
        its time limit, and its folder's size and entries (plus the pair's temp folder) against the disk cap. One
        scan of this pid namespace's /proc per tick (the sandbox's: a few dozen processes)."""
        now = time.monotonic()
        watched = [c for c in self.running.values() if not c.replied and c.killed_for is None and c.request and now >= c.next_check]
        if not watched:
            return
        for child in watched:
            child.next_check = now + USAGE_TICK_SECONDS
        processes = scan_processes()
        children = {}
        for pid, (parent, _) in processes.items():
            children.setdefault(parent, []).append(pid)
        detached = descendants([p for p in children.get(self.server_pid, ()) if p not in self.by_pid], children)
        detached_ticks = sum(processes[p][1] for p in detached if p in processes)
        pair_tmp = None
        for child in watched:
            tree = descendants([child.pid], children) if child.pid in processes else []
            ticks = sum(processes[p][1] for p in tree if p in processes) + detached_ticks
            child.cpu_ms = max(child.cpu_ms, ticks * 1000 / CLOCK_TICKS)
            time_ms = child.request.get("time_ms")
            if time_ms and child.cpu_ms > time_ms:
                self.kill_for(child, "cpu")
                for pid in tree + detached:
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except OSError:
                        pass
                continue
            disk_bytes = child.request.get("disk_bytes")
            disk_entries = child.request.get("disk_entries") or 10_000
            if disk_bytes:
                if pair_tmp is None:
                    pair_tmp = folder_usage(self.pair_tmp, disk_bytes, disk_entries) if self.pair_tmp else (0, 0)
                used, entries = folder_usage(child.case_dir, disk_bytes, disk_entries)
                if used + pair_tmp[0] > disk_bytes or entries + pair_tmp[1] > disk_entries:
                    self.kill_for(child, "disk")

    def serve(self):
        os.set_blocking(PROTO_IN, False)
        while self.input_open:
            for key, _ in self.selector.select(self.next_timeout()):
                kind, child = key.data
                if kind == "in":
                    self.read_requests()
                elif kind == "server":
                    self.from_server()
                elif kind == "wake":
                    try:
                        while os.read(self.wake_r, 4096):
                            pass
                    except BlockingIOError:
                        pass
                    pid, status = os.waitpid(self.server_pid, os.WNOHANG)
                    if pid:
                        self.server_died(self.server_end(status))
                elif kind == "pipe":
                    self.read_pipe(child, key.fd)
            self.dispatch()
            if self.server_error:
                # The cases that would have started now cannot (no fork): they are answered; the rest wait for
                # the next try, as a case sent alone would have been answered on its own.
                free = max(0, self.slots - len(self.running) - len(self.spares))
                for _, request in self.waiting[:free]:
                    self.outbox.append(self.frame(request["id"], {
                        "end": "failed_to_start", "ms": 0, "message": f"the harness could not start the case: {self.server_error}",
                    }))
                del self.waiting[:free]
                self.server_error = None
            now = time.monotonic()
            for child in self.running.values():
                if not child.replied and child.killed_for is None and now >= child.deadline:
                    self.kill_for(child, "wall")
            self.check_usage()
            if self.outbox:
                data = b"".join(self.outbox)
                self.outbox = []
                write_all(PROTO_OUT, data)
            if self.credit or self.free_folders:
                try:
                    self.sock.send(b"w" + struct.pack("<i", self.credit) + b"\0".join(os.fsencode(f) for f in self.free_folders))
                    self.credit = 0
                    self.free_folders = []
                except BlockingIOError:
                    pass  # the server is busy forking; asked again next turn
        # The runner is gone: nobody waits for the running cases or needs the spares.
        for child in list(self.by_pid.values()):
            self.kill_group(child)
        self.sock.close()  # the fork server kills what is left of its children and exits
        try:
            os.waitpid(self.server_pid, 0)
        except ChildProcessError:
            pass
        # The sample closes: the last main case's folder goes too (removed as its owner, closed folders included).
        for folder in self.left_folders:
            remove_tree(folder)


def main(argv=None):
    argv = sys.argv if argv is None else argv
    add_site_paths()
    take_protocol_fds()
    main_program = len(argv) > 1 and argv[1] == "--main"
    if main_program:
        argv = [argv[0], argv[2] if len(argv) > 2 else "", None, *argv[3:]]
    if len(argv) not in (3, 4) or (main_program and not argv[1]):
        send({"op": "load_error", "kind": "usage",
              "message": "usage: sample_harness.py <entry_file> <function_name> [<spares>] | --main <entry_file> [<spares>]"})
        return 2
    if sys.version_info < (3, 9) or not hasattr(socket, "send_fds"):
        send({"op": "load_error", "kind": "usage",
              "message": f"the sample harness needs Python 3.9 or newer on Linux; this is Python {sys.version.split()[0]} on {sys.platform}"})
        return 2
    entry_file, function_name = argv[1], argv[2]
    spares = int(argv[3]) if len(argv) == 4 else 2
    harness = Harness(entry_file, function_name, os.getcwd(), spares)
    send(harness.load_message)
    if harness.load_message.get("op") != "ready":
        harness.sock.close()
        return 0
    harness.serve()
    return 0


def import_and_report(sock, entry_file, function_name):
    """In the fork server: imports the deliverable (or compiles a main program: function_name None) and sends the
    harness the outcome. The function (the MainProgram), or None."""
    fn, error = load_function(entry_file, function_name) if function_name is not None else load_main(entry_file)
    if error is not None:
        error.update({"op": "load_error", **import_output})
        if "traceback" in error:
            error["traceback"] = clip(error["traceback"], TRACEBACK_CHARS)
        error["message"] = clip(error["message"], MESSAGE_CHARS)
        sock.send(b"r" + json.dumps(error).encode("utf-8"))
        return None
    signature, signature_error = describe_signature(fn, function_name) if function_name is not None else (None, None)
    sock.send(b"r" + json.dumps({"op": "ready", "signature": signature, "signature_error": signature_error,
                                  "import_stdout": import_output["stdout"], "import_stderr": import_output["stderr"],
                                  "pid": os.getppid()}).encode("utf-8"))
    return fn


if __name__ == "__main__":
    sys.exit(main())
