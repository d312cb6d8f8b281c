"""skillrig sample host: one sandboxed parent that serves many (task, sample) pairs, one process each.

Usage: python3 -S sample_host.py <sample_harness.py>   (-S: see sample_harness.add_site_paths)

Why: starting a sandbox and an interpreter per (task, sample) is what bounds a suite. This parent starts once per
Runner, imports sample_harness.py once, and for each pair forks a "pair process" that switches to the pair's own
uid, drops every capability, and runs sample_harness.main() on pipes of its own (which imports that sample and
forks per case, exactly as a harness started alone does).

Trust: like the harness, this file runs inside the sandbox and is not trusted by the runner; it never imports a
deliverable and never sees an expected value. It is started with CAP_SETUID, CAP_SETGID and CAP_SETPCAP only (see the sandbox's
SampleUidSupport), runs as the runtime's own uid, not dumpable, and is a child subreaper. Samples are kept apart by
uid: a pair process and all it starts run as a uid leased by the runner for that pair alone, so one sample cannot
signal, trace, or read the files of another (its folders are 0700 and owned by its uid), and RLIMIT_NPROC counts
per sample. When a pair ends, everything still running as its uid is killed (a process switched to that uid does
kill(-1, SIGKILL)) and its files in the shared /tmp and /dev/shm are removed at any depth (its folders get their
permissions back first), before the runner hears of the end.

Protocol with the runner (fds 0 and 1, private copies; the real 0/1 point at /dev/null):
  runner -> runtime, one JSON header line each, some followed by raw bytes:
    {"op":"open","pair":N,"uid":U,"argv":[entry,function,spares],"pin":bool (keep the pair on one core),"cwd":dir,"tmp":dir,"rlimits":{"nproc":..,"as":..,"cpu":..,"fsize":..},
     "channel":path (optional)}
       With "channel", the pair's stdin and stdout are a Unix socket the runner listens on at that path (in the
       pair's own 0700 folder): the pair process connects to it after its uid switch and removes the path before
       anything of the sample runs, so the runner speaks to the pair's harness directly (no relay here, no copy
       through this process) and nothing of the sample can connect again. Its stderr still comes through here.
    {"op":"in","pair":N,"len":L}  + L bytes for the pair's stdin
    {"op":"close","pair":N}       closes the pair's stdin (its harness then stops its cases and exits)
    {"op":"kill","pair":N}        kills everything running as the pair's uid
  runtime -> runner:
    {"op":"ready","pid":P}                 once, after sample_harness.py was imported
    {"pair":N,"s":"o"|"e","len":L} + L bytes of the pair's stdout / stderr
    {"op":"exit","pair":N,"code":C|null,"signal":"NAME"|null}   the pair process ended and its uid was swept
    {"op":"beat"}                          every second, so the runner can tell a stalled runtime from a slow pair
  EOF on stdin: every pair is killed and the runtime exits.
"""

import ctypes
import errno
import json
import os
import resource
import selectors
import signal
import _signal
import stat
import sys
import time

PROTO_IN = os.dup(0)
PROTO_OUT = os.dup(1)
_devnull = os.open(os.devnull, os.O_RDWR)
os.dup2(_devnull, 0)
os.dup2(_devnull, 1)
os.close(_devnull)
for _fd in (PROTO_IN, PROTO_OUT):
    os.set_inheritable(_fd, False)

PR_SET_DUMPABLE = 4
PR_SET_CHILD_SUBREAPER = 36
PR_CAP_AMBIENT = 47
PR_CAP_AMBIENT_CLEAR_ALL = 4
PR_CAPBSET_DROP = 24
LINUX_CAPABILITY_VERSION_3 = 0x20080522
CHUNK = 64 * 1024
HEADER_LIMIT = 1 << 20
BEAT_SECONDS = 1.0

libc = ctypes.CDLL(None, use_errno=True)


def prctl(option, arg2=0):
    return libc.prctl(option, arg2, 0, 0, 0) == 0


prctl(PR_SET_DUMPABLE, 0)
prctl(PR_SET_CHILD_SUBREAPER, 1)

sys.path.insert(0, os.path.dirname(os.path.abspath(sys.argv[1])))
import sample_harness  # noqa: E402  (imported once here; every pair process inherits it)

sample_harness.add_site_paths()  # before any pair: each inherits the paths and none of site's start-up code


def write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def send(obj, body=b""):
    write_all(PROTO_OUT, json.dumps(obj).encode("utf-8") + b"\n" + body)


class CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


# Built once here, before any pair is forked (each pair only reads them): capset's header and an empty set.
CAP_HEADER = ctypes.byref(CapHeader(LINUX_CAPABILITY_VERSION_3, 0))
NO_CAPS = (CapData * 2)()


def bounding_caps():
    """The capabilities in this process's bounding set: the only ones a pair has to drop from it (setpriv leaves the
    host three, so a pair makes three prctl calls, not one per capability the kernel knows). Every one the kernel
    knows where the set cannot be read; become() checks the result either way."""
    bounding = sample_harness.proc_status_field("self", b"CapBnd:")
    if bounding:
        mask = int(bounding[0], 16)
        return tuple(cap for cap in range(64) if mask >> cap & 1)
    try:
        with open("/proc/sys/kernel/cap_last_cap", "rb") as f:
            last = int(f.read())
    except (OSError, ValueError):
        last = 63  # dropping a capability the kernel does not know fails harmlessly (EINVAL)
    return tuple(range(last + 1))


BOUNDING_CAPS = bounding_caps()


def become(uid):
    """Switches this process to `uid` for good and drops every capability, the bounding set included (the runtime
    keeps CAP_SETPCAP for this alone); raises when any is left."""
    for cap in BOUNDING_CAPS:
        libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)
    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL)
    if libc.capset(CAP_HEADER, NO_CAPS) != 0:
        raise OSError(ctypes.get_errno(), "capset failed")
    for key in (b"CapInh:", b"CapPrm:", b"CapEff:", b"CapBnd:", b"CapAmb:"):
        value = sample_harness.proc_status_field("self", key)
        if value is not None and int(value[0], 16) != 0:
            raise OSError(errno.EPERM, f"capabilities left after the uid switch: {key.decode()} {value}")
    prctl(PR_SET_DUMPABLE, 0)


def uid_left(uid):
    """True when a process of this sandbox runs as `uid` (any of its real, effective, saved or fs uids), or a file of
    `uid` is in a shared temp folder. This pid namespace holds only the runtime and its pairs, so the scan is short;
    it spares the fork of a sweeper (the biggest cost of a pair's end) when the pair left nothing behind, which is
    the common case: its harness kills every case before it exits. A process of `uid` can only come from another
    one, so when none is left none can appear."""
    wanted = str(uid).encode()
    for pid in sample_harness.proc_pids():
        uids = sample_harness.proc_status_field(pid, b"Uid:")  # None: gone meanwhile
        if uids is not None and wanted in uids:
            return True
    return owns_temp_entries(uid)


SHARED_TEMP_FOLDERS = ("/tmp", "/dev/shm")


def entries_here():
    """The current folder's entries as (name, is_folder, owner), never following a link; [] when it cannot be read."""
    found = []
    try:
        with os.scandir(".") as entries:
            for entry in entries:
                try:
                    st = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                found.append((entry.name, stat.S_ISDIR(st.st_mode), st.st_uid))
    except OSError:
        pass
    return found


def enter(name):
    """Makes folder `name` of the current folder the current one, never through a link; False when it cannot."""
    try:
        fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError:
        return False
    try:
        os.fchdir(fd)
        return True
    except OSError:
        return False
    finally:
        os.close(fd)


def walk_temp(root, visit_file, visit_folder):
    """Walks `root` at any depth, one folder descriptor at a time (fchdir down, ".." up: neither a path's length nor
    the number of open files limits the depth), never following a link. `visit_folder(name, owner)` is called before
    a folder is entered (it may restore its permissions) and returns whether to enter it; `visit_file(name, owner)` for
    everything else; `visit_folder(name, owner, left=True)` after the folder was left. A visitor returning "stop"
    ends the walk."""
    if not enter(root):
        return
    frames = [entries_here()]
    names = []
    while frames:
        if not frames[-1]:
            frames.pop()
            if names:
                name, owner = names.pop()
                os.chdir("..")
                if visit_folder(name, owner, True) == "stop":
                    return
            continue
        name, is_folder, owner = frames[-1].pop()
        if not is_folder:
            if visit_file(name, owner) == "stop":
                return
            continue
        wanted = visit_folder(name, owner, False)
        if wanted == "stop":
            return
        if wanted and enter(name):
            names.append((name, owner))
            frames.append(entries_here())


def owns_temp_entries(uid):
    """True when `uid` owns anything in the shared temp folders, at any depth this process can read."""
    found = []

    def visit(name, owner, left=False):
        if owner == uid:
            found.append(name)
            return "stop"
        return True

    cwd = os.open(".", os.O_RDONLY | os.O_DIRECTORY)
    try:
        for shared in SHARED_TEMP_FOLDERS:
            walk_temp(shared, visit, visit)
            if found:
                return True
    finally:
        os.fchdir(cwd)
        os.close(cwd)
    return False


def clear_temp_of(uid):
    """Removes everything `uid` owns in the shared temp folders, at any depth (run as `uid`, once its processes are
    gone): each of its folders gets its permissions back before it is entered (a folder left at mode 000 cannot be
    listed or emptied), its files go, and its folders go once emptied, deepest first. What other uids own is left."""

    def visit_file(name, owner):
        if owner == uid:
            try:
                os.unlink(name)
            except OSError:
                pass

    def visit_folder(name, owner, left):
        if owner != uid:
            return True  # entered when readable: this uid's files may be inside
        if left:
            try:
                os.rmdir(name)
            except OSError:
                pass
            return True
        try:
            os.chmod(name, 0o700, follow_symlinks=False)
        except (OSError, NotImplementedError):
            try:
                os.chmod(name, 0o700)  # an lstat said it is a folder, not a link
            except OSError:
                pass
        return True

    for shared in SHARED_TEMP_FOLDERS:
        walk_temp(shared, visit_file, visit_folder)


def sweep_uid(uid):
    """Kills everything running as `uid` and removes its files from the shared temp folders, at any depth (in a
    child of that uid), before the uid or the shared folders serve anyone else."""
    if not uid_left(uid):
        return
    pid = os.fork()
    if pid == 0:
        try:
            become(uid)
            for _ in range(100):
                try:
                    os.kill(-1, signal.SIGKILL)  # every process of this uid but this one, in one pass of the kernel
                except OSError:
                    break
            clear_temp_of(uid)
        finally:
            os._exit(0)
    while True:
        try:
            os.waitpid(pid, 0)
            return
        except ChildProcessError:
            return
        except InterruptedError:
            continue


def connect_channel(path):
    """Makes the runner's socket at `path` this process's stdin and stdout (as the pair's uid, so only a process of
    the folder's owner could have opened it), then removes the path: nothing started later can connect again."""
    sock = sample_harness.socket.socket(sample_harness.socket.AF_UNIX, sample_harness.socket.SOCK_STREAM)
    try:
        sock.connect(path)
    finally:
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass  # the runner took it away first, on our connection
    os.dup2(sock.fileno(), 0)
    os.dup2(sock.fileno(), 1)
    sock.close()


def run_pair(request, fds, cpu):
    """In the forked pair process: takes its pipes, becomes its uid, applies its limits, runs the harness."""
    in_r, out_w, err_w = fds
    try:
        if cpu is not None:
            # First, before this process writes to more pages: every copy-on-write fault of the pair's tree is then
            # taken on this one core, where it costs no TLB shootdown on another one.
            os.sched_setaffinity(0, (cpu,))
        os.dup2(err_w, 2)
        if in_r is not None:
            os.dup2(in_r, 0)
            os.dup2(out_w, 1)
        os.closerange(3, 65536)
        os.setsid()
        _signal.set_wakeup_fd(-1)  # _signal, not signal: no enum wrappers (pages to fault on) in a fresh fork
        _signal.signal(_signal.SIGCHLD, _signal.SIG_DFL)
        prctl(PR_SET_CHILD_SUBREAPER, 0)
        become(int(request["uid"]))
        channel = request.get("channel")
        if channel:
            connect_channel(channel)
        limits = request.get("rlimits") or {}
        for key, which in (("nproc", resource.RLIMIT_NPROC), ("as", resource.RLIMIT_AS), ("fsize", resource.RLIMIT_FSIZE)):
            if limits.get(key):
                resource.setrlimit(which, (int(limits[key]), int(limits[key])))
        if limits.get("cpu"):
            seconds = int(limits["cpu"])
            resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds + 1))
        # The pair's working and temp folders are made here, as its uid, in the 0700 folder the runner handed it
        # (they are there already when the pair is started again after its harness died).
        for folder in (request["cwd"], request.get("tmp")):
            if folder:
                try:
                    os.mkdir(folder, 0o700)
                except FileExistsError:
                    pass
        os.chdir(request["cwd"])
        tmp = request.get("tmp")
        if tmp:
            for name in ("TMPDIR", "TMP", "TEMP"):
                os.environ[name] = tmp
        sys.argv = [sample_harness.HARNESS_FILE, *request["argv"]]
        code = sample_harness.main(sys.argv)
    except BaseException as exc:
        try:
            os.write(2, f"sample host: the pair process could not start: {type(exc).__name__}: {exc}\n".encode())
        except OSError:
            pass
        code = 71
    os._exit(code if isinstance(code, int) else 0)


class Pair:
    __slots__ = ("id", "pid", "uid", "in_w", "inbox", "closing", "streams", "status", "killed", "cpu")

    def __init__(self, pair_id, pid, uid, in_w, streams, cpu):
        self.cpu = cpu
        self.id = pair_id
        self.pid = pid
        self.uid = uid
        self.in_w = in_w
        self.inbox = bytearray()
        self.closing = False
        self.streams = streams  # read fd -> "o" | "e"
        self.status = None
        self.killed = False


class Runtime:
    def __init__(self):
        self.selector = selectors.DefaultSelector()
        self.pairs = {}
        self.by_pid = {}
        self.inbuf = bytearray()
        self.input_open = True
        self.wake_r, self.wake_w = os.pipe()
        for fd in (self.wake_r, self.wake_w):
            os.set_blocking(fd, False)
            os.set_inheritable(fd, False)
        signal.set_wakeup_fd(self.wake_w, warn_on_full_buffer=False)
        signal.signal(signal.SIGCHLD, lambda *_: None)
        os.set_blocking(PROTO_IN, False)
        self.selector.register(PROTO_IN, selectors.EVENT_READ, ("in", None))
        self.selector.register(self.wake_r, selectors.EVENT_READ, ("wake", None))

    def core_for_pair(self):
        """The core a pinned pair runs on: the allowed core with the fewest pinned pairs (the lowest on a tie), so
        pairs run side by side spread over the cores. None where the allowed cores cannot be read."""
        try:
            cores = sorted(os.sched_getaffinity(0))
        except OSError:
            return None
        if len(cores) < 2:
            return None
        load = dict.fromkeys(cores, 0)
        for pair in self.pairs.values():
            if pair.cpu in load:
                load[pair.cpu] += 1
        return min(cores, key=lambda core: load[core])

    # -- from the runner

    def read_input(self):
        try:
            chunk = os.read(PROTO_IN, 1 << 20)
        except BlockingIOError:
            return
        if not chunk:
            self.input_open = False
            self.selector.unregister(PROTO_IN)
            return
        self.inbuf += chunk
        while True:
            newline = self.inbuf.find(b"\n")
            if newline < 0:
                if len(self.inbuf) > HEADER_LIMIT:
                    raise SystemExit("sample host: a header line from the runner is too long")
                return
            header = json.loads(self.inbuf[:newline])
            length = int(header.get("len", 0))
            if len(self.inbuf) < newline + 1 + length:
                return
            body = bytes(self.inbuf[newline + 1 : newline + 1 + length])
            del self.inbuf[: newline + 1 + length]
            self.handle(header, body)

    def handle(self, header, body):
        op = header.get("op")
        pair = self.pairs.get(header.get("pair"))
        if op == "open":
            self.open_pair(header)
        elif pair is None:
            return  # a pair that ended already: its late input goes nowhere
        elif op == "in":
            if pair.in_w is not None:
                pair.inbox += body
                self.flush_pair(pair)
        elif op == "close":
            pair.closing = True
            self.flush_pair(pair)
        elif op == "kill":
            pair.killed = True
            sweep_uid(pair.uid)

    def open_pair(self, request):
        pair_id = request["pair"]
        # With a channel of its own, the pair's stdin and stdout are the runner's socket: only stderr comes here.
        direct = bool(request.get("channel"))
        in_r, in_w = (None, None) if direct else os.pipe()
        out_r, out_w = (None, None) if direct else os.pipe()
        err_r, err_w = os.pipe()
        cpu = self.core_for_pair() if request.get("pin") else None
        pid = os.fork()
        if pid == 0:
            run_pair(request, (in_r, out_w, err_w), cpu)
        streams = {err_r: "e"} if direct else {out_r: "o", err_r: "e"}
        for fd in (in_r, out_w, err_w):
            if fd is not None:
                os.close(fd)
        for fd in (in_w, *streams):
            if fd is not None:
                os.set_inheritable(fd, False)
                os.set_blocking(fd, False)
        pair = Pair(pair_id, pid, int(request["uid"]), in_w, streams, cpu)
        self.pairs[pair_id] = pair
        self.by_pid[pid] = pair
        for fd in streams:
            self.selector.register(fd, selectors.EVENT_READ, ("pair", pair))

    def flush_pair(self, pair):
        if pair.in_w is None:
            return
        while pair.inbox:
            try:
                written = os.write(pair.in_w, pair.inbox)
            except BlockingIOError:
                break
            except OSError:
                pair.inbox.clear()  # the pair is gone; its end is reported when it is reaped
                break
            del pair.inbox[:written]
        waiting = bool(pair.inbox)
        registered = pair.in_w in self.selector.get_map()
        if waiting and not registered:
            self.selector.register(pair.in_w, selectors.EVENT_WRITE, ("write", pair))
        elif registered and not waiting:
            self.selector.unregister(pair.in_w)
        if not waiting and pair.closing:
            os.close(pair.in_w)
            pair.in_w = None

    # -- from the pairs

    def read_pair(self, pair, fd):
        try:
            chunk = os.read(fd, CHUNK)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        if not chunk:
            self.selector.unregister(fd)
            os.close(fd)
            del pair.streams[fd]
            self.maybe_ended(pair)
            return
        send({"pair": pair.id, "s": pair.streams[fd], "len": len(chunk)}, chunk)

    def reap(self):
        try:
            while os.read(self.wake_r, 4096):
                pass
        except BlockingIOError:
            pass
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            pair = self.by_pid.pop(pid, None)
            if pair is None:
                continue  # something a pair detached, re-parented here: its uid's sweep kills the rest
            pair.status = status
            # Nothing of the pair outlives it, so its pipes reach end of file and nothing meets the uid's next holder.
            sweep_uid(pair.uid)
            self.maybe_ended(pair)

    def maybe_ended(self, pair):
        if pair.status is None or pair.streams:
            return
        if pair.in_w is not None:
            try:
                self.selector.unregister(pair.in_w)
            except (KeyError, ValueError):
                pass
            os.close(pair.in_w)
            pair.in_w = None
        status = pair.status
        code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else None
        sig = None
        if os.WIFSIGNALED(status):
            try:
                sig = signal.Signals(os.WTERMSIG(status)).name
            except ValueError:
                sig = str(os.WTERMSIG(status))
        del self.pairs[pair.id]
        send({"op": "exit", "pair": pair.id, "code": code, "signal": sig})

    def serve(self):
        send({"op": "ready", "pid": os.getpid()})
        next_beat = time.monotonic() + BEAT_SECONDS
        while self.input_open:
            for key, _ in self.selector.select(max(0.0, next_beat - time.monotonic())):
                kind, pair = key.data
                if kind == "in":
                    self.read_input()
                elif kind == "wake":
                    self.reap()
                elif kind == "pair":
                    self.read_pair(pair, key.fd)
                elif kind == "write":
                    self.flush_pair(pair)
            if time.monotonic() >= next_beat:
                send({"op": "beat"})
                next_beat = time.monotonic() + BEAT_SECONDS
        for pair in list(self.pairs.values()):
            sweep_uid(pair.uid)


if __name__ == "__main__":
    Runtime().serve()
