/**
 * The agent profile without an engine: real bubblewrap, real loopback HTTP, a real python3 calling the kernel. The
 * jail reaches the model endpoint through the egress relay and nothing else; a named endpoint keeps its name; a
 * missing program is engine_not_found; level "none" is unconfined and says so. Least privilege: as root the agent
 * is a per-run uid with no capability (bounding set included) and no_new_privs, the seccomp filter refuses file
 * handles (the "shocker" read of a host file), ptrace, keyrings, bpf, perf, userfaultfd, io_uring and user
 * namespaces, /proc/sys is read-only; unprivileged (run here as nobody) the same holds inside bubblewrap's user
 * namespace. A control run unconfined shows the same program does escape as root.
 */
import { spawn, spawnSync } from "node:child_process";
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { confineAgent, modelEndpointOf, probeHost } from "@skillrig/sandbox";

let model: Server;
let other: Server;
const port = (s: Server) => (s.address() as { port: number }).port;

beforeAll(async () => {
  model = createServer((_req, res) => res.end("model-answer"));
  other = createServer((_req, res) => res.end("other-answer"));
  await Promise.all([model, other].map((s) => new Promise<void>((r) => s.listen(0, "127.0.0.1", r))));
});
afterAll(async () => {
  await Promise.all([model, other].map((s) => new Promise((r) => s.close(r))));
});

function folders() {
  const root = mkdtempSync(join(tmpdir(), "skillrig-agent-profile-"));
  mkdirSync(join(root, "workspace"));
  mkdirSync(join(root, "engine"));
  return { workspace: join(root, "workspace"), engine: join(root, "engine") };
}

/** Runs a confined command to its end (asynchronously: the relay lives in this process). */
function run(file: string, args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(file, args, { env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c));
    child.stderr.on("data", (c: Buffer) => (stderr += c));
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

const FETCH = (url: string) =>
  `fetch(${JSON.stringify(url)}).then(r => r.text()).then(t => console.log("GOT " + t), e => console.log("FAILED " + (e.cause?.code ?? e.message)))`;

describe("agent profile", () => {
  it("the model endpoint is reachable through the relay; another port on 127.0.0.1 is not", async () => {
    const f = folders();
    const script = `${FETCH(`http://127.0.0.1:${port(model)}/`)}.then(() => ${FETCH(`http://127.0.0.1:${port(other)}/`)})`;
    const confined = await confineAgent({
      command: [process.execPath, "-e", script],
      workspace: f.workspace,
      writable: [f.engine],
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      modelBaseUrl: `http://127.0.0.1:${port(model)}/v1`,
    });
    try {
      expect(probeHost().namespacesWork, "bubblewrap must work on this machine").toBe(true);
      expect({ isolation: confined.isolation, network: confined.network }).toEqual({
        isolation: "namespaces",
        network: "model-endpoint-only",
      });
      const r = await run(confined.file, confined.args, confined.env);
      expect(r.stdout, r.stderr).toContain("GOT model-answer");
      expect(r.stdout).toMatch(/FAILED ECONNREFUSED/);
      expect(r.stdout).not.toContain("other-answer");
    } finally {
      await confined.close();
    }
  });

  it("a named endpoint resolves to the relay inside the jail (TLS keeps its host name)", async () => {
    const f = folders();
    const confined = await confineAgent({
      command: ["getent", "hosts", "api.example.com"],
      workspace: f.workspace,
      writable: [f.engine],
      env: { PATH: "/usr/bin:/bin" },
      modelBaseUrl: "https://api.example.com/v1",
    });
    try {
      expect(modelEndpointOf("https://api.example.com/v1")).toEqual({ host: "api.example.com", port: 443 });
      const r = await run(confined.file, confined.args, confined.env);
      expect(r.stdout.trim(), r.stderr).toMatch(/^127\.0\.0\.1\s+.*api\.example\.com/);
    } finally {
      await confined.close();
    }
  });

  it("starts a program reached through a symlinked folder by its real path, which is what the jail binds", async () => {
    // A workspace package's node_modules/<cli> is a link into pnpm's store (<root>/node_modules/.pnpm/...): the jail
    // binds the store, not the package's own node_modules, so the link's path does not exist inside the jail.
    const f = folders();
    const root = mkdtempSync(join(tmpdir(), "skillrig-agent-bin-"));
    const store = join(root, "node_modules", ".pnpm", "tool", "node_modules", "tool");
    mkdirSync(store, { recursive: true });
    writeFileSync(join(store, "cli.js"), `#!/usr/bin/env node\nconsole.log("RAN " + process.argv[1]);\n`);
    chmodSync(join(store, "cli.js"), 0o755);
    mkdirSync(join(root, "plugin", "node_modules"), { recursive: true });
    symlinkSync(join(root, "node_modules", ".pnpm", "tool", "node_modules", "tool"), join(root, "plugin", "node_modules", "tool"));
    const confined = await confineAgent({
      command: [join(root, "plugin", "node_modules", "tool", "cli.js")],
      workspace: f.workspace,
      writable: [f.engine],
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    });
    try {
      const r = await run(confined.file, confined.args, confined.env);
      expect(r.stdout.trim(), r.stderr).toBe(`RAN ${join(store, "cli.js")}`);
    } finally {
      await confined.close();
    }
  });

  it("a program that does not exist is engine_not_found; level none is unconfined with a warning", async () => {
    const f = folders();
    await expect(confineAgent({ command: ["/nonexistent/engine"], workspace: f.workspace, env: {} })).rejects.toMatchObject({
      code: "engine_not_found",
    });
    const open = await confineAgent({ command: ["true"], workspace: f.workspace, env: {} }, { level: "none" });
    expect({ isolation: open.isolation, network: open.network, file: open.file }).toEqual({
      isolation: "none",
      network: "host",
      file: "true",
    });
    expect(open.warnings.join()).toMatch(/runs unconfined \(level "none" was chosen\)/);
  });
});

/**
 * What the agent may do, as seen from inside: its ids and capability sets, and the errno of each call the jail must
 * refuse ("ok" when it worked). argv: <handle type> <handle hex> of a host file outside the jail, <folder to write>.
 */
const PRIVILEGES_PROGRAM = String.raw`
import ctypes, errno, json, os, sys
l = ctypes.CDLL(None, use_errno=True)
def call(f):
    ctypes.set_errno(0)
    r = f()
    return "ok" if r >= 0 else errno.errorcode.get(ctypes.get_errno(), str(ctypes.get_errno()))
status = dict(line.split(":", 1) for line in open("/proc/self/status").read().splitlines() if ":" in line)
out = {"uid": os.getuid(), "gid": os.getgid(), "groups": os.getgroups()}
for k in ["CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb", "NoNewPrivs", "Seccomp"]:
    out[k] = status[k].strip()
F = type("F", (ctypes.Structure,), {"_fields_": [("n", ctypes.c_uint), ("t", ctypes.c_int), ("b", ctypes.c_ubyte * 128)]})
f = F(128, 0); m = ctypes.c_int()
out["name_to_handle_at"] = call(lambda: l.name_to_handle_at(-100, b".", ctypes.byref(f), ctypes.byref(m), 0))
h = bytes.fromhex(sys.argv[2])
G = type("G", (ctypes.Structure,), {"_fields_": [("n", ctypes.c_uint), ("t", ctypes.c_int), ("b", ctypes.c_char * len(h))]})
g = G(len(h), int(sys.argv[1]), h)
fd = l.open_by_handle_at(os.open(".", os.O_RDONLY), ctypes.byref(g), os.O_RDONLY)
out["open_by_handle_at"] = os.read(fd, 100).decode() if fd >= 0 else errno.errorcode.get(ctypes.get_errno())
l.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
out["ptrace"] = call(lambda: l.ptrace(0x4206, os.getppid(), None, None))
numbers = {"x86_64": {"bpf": 321, "keyctl": 250, "perf_event_open": 298, "userfaultfd": 323, "process_vm_readv": 310},
           "aarch64": {"bpf": 280, "keyctl": 219, "perf_event_open": 241, "userfaultfd": 282, "process_vm_readv": 270}}[os.uname().machine]
for name, nr in numbers.items():
    out[name] = call(lambda: l.syscall(nr, 0, 0, 0, 0, 0))
params = ctypes.create_string_buffer(120)
out["io_uring_setup"] = call(lambda: l.syscall(425, 1, params))
out["unshare_user"] = call(lambda: l.unshare(0x10000000))
try:
    open("/proc/sys/kernel/hostname", "a").close(); out["proc_sys_write"] = "ok"
except OSError as e:
    out["proc_sys_write"] = errno.errorcode[e.errno]
out["proc_sys_mount"] = [l.split()[5].split(",")[0] for l in open("/proc/self/mountinfo") if l.split()[4] == "/proc/sys"]
pid = os.fork()
if pid == 0:
    os._exit(0)
out["fork"] = os.waitpid(pid, 0)[1]
open(os.path.join(sys.argv[3], "written-by-agent.txt"), "w").write("agent")
print("PRIVILEGES " + json.dumps(out))
`;

/** name_to_handle_at of `file`, taken on the host (as the test's own user). */
function fileHandle(file: string): [string, string] {
  const r = spawnSync(
    "python3",
    [
      "-c",
      String.raw`
import ctypes, sys
l = ctypes.CDLL(None, use_errno=True)
F = type("F", (ctypes.Structure,), {"_fields_": [("n", ctypes.c_uint), ("t", ctypes.c_int), ("b", ctypes.c_ubyte * 128)]})
f = F(128, 0); m = ctypes.c_int()
assert l.name_to_handle_at(-100, sys.argv[1].encode(), ctypes.byref(f), ctypes.byref(m), 0) == 0
print(f.t, bytes(f.b[:f.n]).hex())`,
      file,
    ],
    { encoding: "utf8" },
  );
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.trim().split(" ") as [string, string];
}

function privilegesOf(stdout: string): Record<string, unknown> {
  const line = stdout.split("\n").find((l) => l.startsWith("PRIVILEGES "));
  expect(line, stdout).toBeDefined();
  return JSON.parse((line as string).slice("PRIVILEGES ".length)) as Record<string, unknown>;
}

/** Pids whose real uid is `uid`. */
function processesOfUid(uid: number): string[] {
  return readdirSync("/proc").filter((pid) => {
    try {
      return /^\d+$/.test(pid) && new RegExp(`^Uid:\\s+${uid}\\s`, "m").test(readFileSync(`/proc/${pid}/status`, "utf8"));
    } catch {
      return false;
    }
  });
}

const ZERO_CAPS = {
  CapInh: "0000000000000000",
  CapPrm: "0000000000000000",
  CapEff: "0000000000000000",
  CapBnd: "0000000000000000",
  CapAmb: "0000000000000000",
};

/** What the jail leaves an agent, whoever runs it (the uid is checked apart). */
const JAILED = {
  ...ZERO_CAPS,
  NoNewPrivs: "1",
  Seccomp: "2",
  name_to_handle_at: "EPERM",
  open_by_handle_at: "EPERM",
  ptrace: "EPERM",
  bpf: "EPERM",
  keyctl: "EPERM",
  perf_event_open: "EPERM",
  userfaultfd: "EPERM",
  process_vm_readv: "EPERM",
  io_uring_setup: "ENOSYS",
  unshare_user: "EPERM",
  proc_sys_mount: ["ro"],
  fork: 0,
};

const isRoot = process.getuid?.() === 0;

describe("agent profile: least privilege", () => {
  it("as root, a machine that cannot give the jail (no bubblewrap, no setpriv) refuses the engine by name unless jail none is chosen", async () => {
    const f = folders();
    const request = { command: ["true"], workspace: f.workspace, env: { PATH: "/usr/bin:/bin" } };
    const base = { ...probeHost(), isRoot: true };
    for (const host of [
      { ...base, bwrap: undefined, namespacesWork: false, namespacesError: "bubblewrap (bwrap) is not installed" },
      { ...base, setpriv: undefined },
    ]) {
      await expect(confineAgent(request, { host })).rejects.toMatchObject({
        code: "sandbox_unavailable",
        field: "jail",
        message: expect.stringMatching(/an agent never runs as root unconfined unless that is chosen/),
      });
      const chosen = await confineAgent(request, { host, level: "none" });
      expect({ isolation: chosen.isolation, capabilities: chosen.capabilities }).toEqual({ isolation: "none", capabilities: "runner" });
    }
    // Unprivileged, the fallback runs with the user's own rights, and says so.
    const user = await confineAgent(request, { host: { ...base, isRoot: false, bwrap: undefined, namespacesWork: false } });
    expect(user.isolation).toBe("none");
    expect(user.warnings.join()).toMatch(/runs unconfined because the jail is not available here/);
  });

  it("the agent holds no capability, runs under the seccomp filter with /proc/sys read-only; as root it is a per-run uid, released and swept, its folders handed back", async () => {
    const f = folders();
    const secret = join(mkdtempSync(join(tmpdir(), "skillrig-agent-secret-")), "host-only.txt");
    writeFileSync(secret, "HOST-ONLY-SECRET");
    const [type, hex] = fileHandle(secret);
    const python = probeHost().python?.executable as string;
    const confined = await confineAgent({
      command: [python, "-c", PRIVILEGES_PROGRAM, type, hex, f.engine],
      workspace: f.workspace,
      writable: [f.engine],
      env: { PATH: "/usr/bin:/bin" },
      modelBaseUrl: `http://127.0.0.1:${port(model)}/v1`,
    });
    const uid = confined.uid as number;
    let r: Awaited<ReturnType<typeof run>>;
    try {
      expect({ capabilities: confined.capabilities, seccomp: confined.seccomp, userNamespaces: confined.userNamespaces }).toEqual({
        capabilities: "none",
        seccomp: true,
        userNamespaces: false,
      });
      if (isRoot) {
        expect(uid).toBeGreaterThan(0);
        // The agent's folders are its own while it runs; the relay's socket is open to its group alone.
        expect(lstatSync(f.workspace).uid).toBe(uid);
        const relayFolder = confined.args[confined.args.findIndex((a) => a.includes("skillrig-egress-"))] as string;
        const folderStat = lstatSync(relayFolder);
        const socketStat = lstatSync(join(relayFolder, "model.sock"));
        expect([folderStat.uid, folderStat.gid, folderStat.mode & 0o777]).toEqual([0, uid, 0o710]);
        expect([socketStat.uid, socketStat.gid, socketStat.mode & 0o777]).toEqual([0, uid, 0o660]);
      } else {
        expect(uid).toBe(process.getuid?.());
      }
      r = await run(confined.file, confined.args, confined.env);
    } finally {
      await confined.close();
    }
    const seen = privilegesOf(r.stdout);
    expect(seen, r.stderr).toMatchObject({ ...JAILED, uid });
    // Not writable, whichever check the kernel makes first (the uid's permission, then the read-only mount).
    expect(["EACCES", "EROFS"]).toContain(seen.proc_sys_write);
    expect(readFileSync(join(f.engine, "written-by-agent.txt"), "utf8")).toBe("agent");
    if (!isRoot) return;
    // Its own group and no other; handed back: the runner owns what the agent wrote; no process of the uid is left;
    // the uid is free again.
    expect({ gid: seen.gid, groups: seen.groups }).toEqual({ gid: uid, groups: [] });
    expect(lstatSync(join(f.engine, "written-by-agent.txt")).uid).toBe(0);
    expect(lstatSync(f.workspace).uid).toBe(0);
    expect(processesOfUid(uid)).toEqual([]);
    expect(existsSync(`/run/skillrig/slot-uids/${uid}`)).toBe(false);
  });

  it("control: unconfined, the same program runs without the filter; as root it reads the host file through a file handle and keeps every capability", async () => {
    const f = folders();
    const secret = join(mkdtempSync(join(tmpdir(), "skillrig-agent-secret-")), "host-only.txt");
    writeFileSync(secret, "HOST-ONLY-SECRET");
    const [type, hex] = fileHandle(secret);
    const open = await confineAgent(
      {
        command: ["python3", "-c", PRIVILEGES_PROGRAM, type, hex, f.engine],
        workspace: f.workspace,
        env: { PATH: process.env.PATH ?? "" },
      },
      { level: "none" },
    );
    expect({ uid: open.uid, capabilities: open.capabilities, seccomp: open.seccomp }).toEqual({
      uid: process.getuid?.(),
      capabilities: "runner",
      seccomp: false,
    });
    const r = await new Promise<{ stdout: string }>((resolve) => {
      const child = spawn(open.file, open.args, { cwd: f.workspace, env: open.env, stdio: ["ignore", "pipe", "inherit"] });
      let stdout = "";
      child.stdout.on("data", (c: Buffer) => (stdout += c));
      child.on("exit", () => resolve({ stdout }));
    });
    const seen = privilegesOf(r.stdout);
    expect(seen.Seccomp).toBe("0");
    if (!isRoot) return;
    expect(seen).toMatchObject({ uid: 0, open_by_handle_at: "HOST-ONLY-SECRET", ptrace: "ok", unshare_user: "ok", proc_sys_write: "ok" });
    expect(seen.CapEff).not.toBe("0000000000000000");
  });

  it("an engine whose own sandbox is bubblewrap (codex) may make user namespaces; every other denial stays", async () => {
    const f = folders();
    const script =
      "unshare -Ur true && echo USERNS-OK; bwrap --ro-bind / / --unshare-user --unshare-pid true && echo NESTED-BWRAP-OK; grep -E '^Cap(Eff|Bnd):' /proc/self/status";
    const results: Record<string, string> = {};
    for (const userNamespaces of [false, true]) {
      const confined = await confineAgent({
        command: ["/bin/sh", "-c", script],
        workspace: f.workspace,
        writable: [f.engine],
        env: { PATH: "/usr/bin:/bin" },
        userNamespaces,
      });
      try {
        expect(confined.userNamespaces).toBe(userNamespaces);
        results[String(userNamespaces)] = (await run(confined.file, confined.args, confined.env)).stdout;
      } finally {
        await confined.close();
      }
    }
    expect(results.false).not.toMatch(/USERNS-OK|NESTED-BWRAP-OK/);
    expect(results.true).toMatch(/USERNS-OK\nNESTED-BWRAP-OK/);
    for (const out of Object.values(results)) expect(out).toMatch(/CapEff:\s+0+\nCapBnd:\s+0+\n/);
  });

  it("descriptors the runner inherited without close-on-exec never reach the agent", async () => {
    // A runner started with descriptors 3..5 open without close-on-exec, as a shell or a CI agent may leave them.
    const f = folders();
    const sandboxDist = new URL("../dist/index.js", import.meta.url).pathname;
    const program = `
      const { confineAgent } = await import(${JSON.stringify(sandboxDist)});
      const { spawnSync } = await import("node:child_process");
      const c = await confineAgent({ command: ["/usr/bin/python3", "-c",
        "import os; print(sorted(int(n) for n in os.listdir('/proc/self/fd') if os.path.exists('/proc/self/fd/' + n)))"],
        workspace: ${JSON.stringify(f.workspace)}, writable: [${JSON.stringify(f.engine)}], env: { PATH: "/usr/bin:/bin" } });
      const r = spawnSync(c.file, c.args, { env: c.env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
      await c.close();
      console.log(r.stdout.trim() || r.stderr);
    `;
    const child = spawn(process.execPath, ["--input-type=module", "-e", program], {
      stdio: ["ignore", "pipe", "inherit", "pipe", "pipe", "pipe"],
    });
    let out = "";
    child.stdout?.on("data", (chunk: Buffer) => (out += chunk));
    await new Promise((done) => child.on("close", done));
    expect(out.trim()).toBe("[0, 1, 2]");
  });

  it("a model endpoint below port 1024 gets its relay listener in the jail, though the relay runs without privilege", async () => {
    // The relay listens on the endpoint's own port inside (443 for a vendor's https URL): the jail's own
    // ip_unprivileged_port_start lets it. Nothing needs to answer on the host: the connection inside is what counts.
    const f = folders();
    const probe = `require("node:net").connect(443, "127.0.0.1").on("connect", () => { console.log("RELAY-LISTENING"); process.exit(0); }).on("error", (e) => { console.log("NO-RELAY " + e.code); process.exit(0); })`;
    const confined = await confineAgent({
      command: [process.execPath, "-e", probe],
      workspace: f.workspace,
      writable: [f.engine],
      env: { PATH: "/usr/bin:/bin" },
      modelBaseUrl: "https://127.0.0.1/v1",
    });
    try {
      const r = await run(confined.file, confined.args, confined.env);
      expect(r.stdout, r.stderr).toContain("RELAY-LISTENING");
    } finally {
      await confined.close();
    }
  });

  it("unprivileged (as root, the test drops itself to nobody): no capability in bubblewrap's user namespace, the same filter, /proc/sys read-only", () => {
    const runnerUid = isRoot ? 65534 : (process.getuid?.() as number);
    const root = mkdtempSync(join(tmpdir(), "skillrig-agent-nobody-"));
    chmodSync(root, 0o755);
    for (const dir of ["home", "workspace", "engine"]) {
      mkdirSync(join(root, dir));
      if (isRoot) chownSync(join(root, dir), 65534, 65534);
    }
    const secret = join(root, "host-only.txt");
    writeFileSync(secret, "HOST-ONLY-SECRET", { mode: 0o644 });
    const [type, hex] = fileHandle(secret);
    const sandboxDist = new URL("../dist/index.js", import.meta.url).pathname;
    const driver = String.raw`
const { confineAgent, probeHost } = await import(${JSON.stringify(sandboxDist)});
const { spawnSync } = await import("node:child_process");
const [type, hex, root] = process.argv.slice(1);
const host = probeHost(true);
const confined = await confineAgent({ command: ["python3", "-c", process.env.PROGRAM, type, hex, root + "/engine"],
  workspace: root + "/workspace", writable: [root + "/engine"], env: { PATH: "/usr/bin:/bin" } });
const r = spawnSync(confined.file, confined.args, { env: confined.env, encoding: "utf8" });
await confined.close();
console.log(JSON.stringify({ isRoot: host.isRoot, uid: confined.uid, capabilities: confined.capabilities, seccomp: confined.seccomp, isolation: confined.isolation, stdout: r.stdout, stderr: r.stderr }));
`;
    const asNobody = isRoot ? ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"] : [];
    const [file, ...args] = [...asNobody, process.execPath, "--input-type=module", "-e", driver, type, hex, root];
    const r = spawnSync(file as string, args, {
      encoding: "utf8",
      env: { PATH: "/usr/bin:/bin", HOME: join(root, "home"), PROGRAM: PRIVILEGES_PROGRAM },
      timeout: 120_000,
    });
    expect(r.status, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout.trim().split("\n").pop() as string) as Record<string, unknown>;
    expect(report).toMatchObject({ isRoot: false, uid: runnerUid, capabilities: "none", seccomp: true, isolation: "namespaces" });
    const seen = privilegesOf(report.stdout as string);
    expect(seen, report.stderr as string).toMatchObject({ ...JAILED, uid: runnerUid });
    expect(["EACCES", "EROFS"]).toContain(seen.proc_sys_write);
    expect(readFileSync(join(root, "engine", "written-by-agent.txt"), "utf8")).toBe("agent");
  });
});
