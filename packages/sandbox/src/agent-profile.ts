/**
 * The agent profile: how an engine CLI (and every tool command its agent runs) is confined. bubblewrap builds a
 * world holding only the system read-only, the engine's own installation (its node_modules tree and node)
 * read-only, the run's workspace and the engine's per-job folder (HOME, TMPDIR) writable, and nothing else of
 * the host: no task files, other runs, server data or config, no host /tmp, no user home. Its own pid namespace
 * hides the runner (no /proc/<ppid>/cmdline to read a task path from) and ends every process the agent started
 * when the engine ends. Its own network namespace leaves only loopback; the model endpoint is reached through
 * the egress relay (egress-proxy.ts), and nothing else is.
 *
 * Least privilege inside: as root the agent runs as a per-run uid of its own (leased like a deliverable run's,
 * slot-uids.ts), through setpriv with no capability (bounding set included) and no_new_privs; unprivileged,
 * bubblewrap's user namespace maps the runner's uid with every capability dropped and no further user namespaces.
 * Either way a seccomp filter (syscall-filter.ts, AGENT_RULES) refuses file handles, ptrace and its relatives,
 * keyrings, bpf, perf events, userfaultfd, io_uring and new user namespaces, and /proc/sys is read-only.
 *
 * Levels: "namespaces" (this jail) or "none" (the engine runs as the runner's child, as before), chosen by the
 * same host probe as deliverables; a fallback is reported in `warnings` and in the job's result. As root, a jail
 * without a per-run uid is refused (`sandbox_unavailable`), never run as uid 0.
 */
import {
  closeSync,
  existsSync,
  lstatSync,
  mkdtempSync,
  openSync,
  readlinkSync,
  readSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { release, tmpdir } from "node:os";
import { dirname, isAbsolute, join, resolve, sep } from "node:path";
import { type AgentConfinement, type AgentJailRequest, type ConfinedCommand, SkillrigError, unconfinedAgentCommand } from "@skillrig/core";
import { DEFAULT_AGENT_BOUNDS } from "./agent-bounds.js";
import { type EgressRelay, type ModelEndpoint, modelEndpointOf, RELAY_SCRIPT, startEgressRelay } from "./egress-proxy.js";
import { giveCaseFolderTo } from "./folder-access.js";
import { findExecutable, type HostProbe, installationRoot, probeHost } from "./host-probe.js";
import { inheritableDescriptors } from "./inherited-fds.js";
import { sweepProcessesOfUid } from "./process-tree.js";
import { releaseSlotUid, takeSlotUid } from "./slot-uids.js";
import { agentFilter } from "./syscall-filter.js";

export type AgentNetworkPolicy = AgentConfinement["network"];
export type AgentIsolation = "namespaces" | "none";

export interface AgentJailOptions {
  /** "auto" (default) jails when the machine can; "none" runs the engine unconfined (an explicit opt-out). */
  level?: "auto" | AgentIsolation;
  host?: HostProbe;
}

/** System folders the jail sees read-only (never /root, /home, /work, /srv, /tmp, /var). */
const SYSTEM_FOLDERS = ["/usr", "/etc", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt"];
/** Files under /etc that root (uid 0, even without capabilities) could still read: hidden behind empty files. */
const MASKED_FILES = ["/etc/shadow", "/etc/gshadow", "/etc/shadow-", "/etc/gshadow-", "/etc/sudoers", "/etc/ssh"];
/** Variables that would send the engine's requests past the relay (a proxy it cannot reach from the jail anyway). */
const DROPPED_VARIABLES = ["HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY", "all_proxy", "NO_PROXY", "no_proxy"];

function isWithin(path: string, folder: string): boolean {
  return path === folder || path.startsWith(folder.endsWith(sep) ? folder : `${folder}${sep}`);
}

function isSystemPath(path: string): boolean {
  return SYSTEM_FOLDERS.some((dir) => isWithin(path, dir));
}

/**
 * The folders an executable needs: for a program inside a node_modules tree (an npm CLI, with pnpm's store beside
 * it) the outermost node_modules folder; else the folder of its installation (…/bin/x -> …).
 */
export function installationOf(executable: string): string {
  const real = realpathSync(executable);
  const marker = `${sep}node_modules${sep}`;
  const at = real.indexOf(marker);
  if (at >= 0) return real.slice(0, at + marker.length - 1);
  return installationRoot(real);
}

/** The interpreter a script names in its #! line (`#!/usr/bin/env node` -> node on PATH). */
function interpreterOf(executable: string, path: string): string | undefined {
  let head: string;
  try {
    const fd = openSync(realpathSync(executable), "r");
    try {
      const buffer = Buffer.alloc(256);
      head = buffer.subarray(0, readSync(fd, buffer, 0, 256, 0)).toString("utf8");
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
  if (!head.startsWith("#!")) return undefined;
  const parts = head.slice(2).split("\n")[0]!.trim().split(/\s+/);
  const program = parts[0]?.endsWith("/env") ? parts.find((p, i) => i > 0 && !p.startsWith("-")) : parts[0];
  return program ? findExecutable(program, path) : undefined;
}

/** bwrap arguments for a read-only system folder; merged-/usr symlinks stay symlinks. */
function systemBinds(): string[] {
  const args: string[] = [];
  for (const dir of SYSTEM_FOLDERS) {
    if (!existsSync(dir)) continue;
    const stat = lstatSync(dir);
    if (stat.isSymbolicLink()) args.push("--symlink", readlinkSync(dir), dir);
    else args.push("--ro-bind", dir, dir);
  }
  return args;
}

/**
 * Read-only and writable binds, parents first; a folder inside an earlier bind is bound again over it. The folders
 * on the way to a bind that are not themselves bound are made 0755 in the jail's root (bubblewrap would make them
 * 0700 root), so a per-run uid can reach binds under /root or a 0700 temp folder, and sees nothing else there.
 */
function folderBinds(readOnly: string[], writable: string[]): string[] {
  const binds = [
    ...[...new Set(readOnly)].filter((p) => !isSystemPath(p)).map((path) => ({ path, writable: false })),
    ...[...new Set(writable)].map((path) => ({ path, writable: true })),
  ].sort((a, b) => a.path.length - b.path.length);
  const premounted = [...SYSTEM_FOLDERS, "/tmp", "/proc", "/dev"];
  const made = new Set<string>();
  const bound: string[] = [];
  const args: string[] = [];
  for (const bind of binds) {
    const parts = bind.path.split(sep).filter(Boolean);
    for (let i = 1; i < parts.length; i++) {
      const ancestor = `${sep}${parts.slice(0, i).join(sep)}`;
      if (made.has(ancestor) || premounted.includes(ancestor)) continue;
      if (bound.some((dir) => isWithin(ancestor, dir))) continue; // inside a bind: it exists there
      made.add(ancestor);
      args.push("--perms", "0755", "--dir", ancestor);
    }
    args.push(bind.writable ? "--bind" : "--ro-bind", bind.path, bind.path);
    bound.push(bind.path);
  }
  return args;
}

export interface AgentLevelProbe {
  level: AgentIsolation;
  /** Why the jail is not available, when it is not. */
  reason?: string;
}

/**
 * Can this machine build the agent jail? Same probe as deliverables: bubblewrap builds its namespaces here (as root
 * that includes switching to a per-run uid with setpriv).
 */
export function agentJailAvailability(host: HostProbe = probeHost()): AgentLevelProbe {
  if (host.isRoot && !host.setpriv) {
    return { level: "none", reason: "setpriv (util-linux) is missing, so the agent cannot be dropped to an unprivileged user" };
  }
  if (!host.prlimit) {
    return { level: "none", reason: "prlimit (util-linux) is missing, so the agent's processes and file size cannot be bounded" };
  }
  if (host.bwrap && host.namespacesWork) return { level: "namespaces" };
  return { level: "none", reason: host.namespacesError ?? "bubblewrap is not usable" };
}

/** A hosts file naming the endpoint's host as loopback, so a TLS endpoint keeps its name (SNI, certificate). */
function hostsFileFor(endpoint: ModelEndpoint, scratch: string): string | undefined {
  if (/^[\d.]+$/.test(endpoint.host) || endpoint.host.includes(":") || endpoint.host === "localhost") return undefined;
  const file = join(scratch, "hosts");
  writeFileSync(file, `127.0.0.1\tlocalhost ${endpoint.host}\n::1\tlocalhost ip6-localhost\n`);
  return file;
}

function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || /^127\./.test(host);
}

/**
 * Wraps an engine command in the agent jail. With `options.level: "none"`, or when the machine cannot build the jail,
 * returns the command unchanged with `isolation: "none"`, `network: "host"` and a warning saying why.
 */
export async function confineAgent(request: AgentJailRequest, options: AgentJailOptions = {}): Promise<ConfinedCommand> {
  const host = options.host ?? probeHost();
  const [program, ...programArgs] = request.command;
  if (!program) throw new SkillrigError("sandbox_unavailable", "agent jail: no command to run");
  const unconfined = (warning: string): ConfinedCommand => unconfinedAgentCommand(request, warning);
  if (options.level === "none") {
    return unconfined(
      'agent jail: the engine runs unconfined (level "none" was chosen): it can read and write whatever the runner can, and reach any network',
    );
  }
  const availability = agentJailAvailability(host);
  if (availability.level === "none" && host.isRoot) {
    // Unconfined as root the agent would hold uid 0 and every capability: only when the user names it.
    throw new SkillrigError(
      "sandbox_unavailable",
      `agent jail: the jail is not available here (${availability.reason}), and an agent never runs as root unconfined unless that is chosen`,
      {
        field: "jail",
        hint: 'install bubblewrap and util-linux (`bash scripts/setup-system.sh`), or set the engine option jail: "none" to run the engine unconfined as root on purpose',
      },
    );
  }
  if (availability.level === "none") {
    return unconfined(
      `agent jail: the engine runs unconfined because the jail is not available here (${availability.reason}); it can read and write whatever the runner can, and reach any network`,
    );
  }

  const path = request.env.PATH ?? process.env.PATH ?? "/usr/bin:/bin";
  const found = findExecutable(program, path);
  if (!found || !existsSync(found)) {
    throw new SkillrigError("engine_not_found", `agent jail: cannot find the engine's executable ${program}`, { file: program });
  }
  // The jail binds the executable's installation by its real path (installationOf), so it starts it by that path:
  // a path through a symlinked folder that is not bound (a workspace package's node_modules/<cli> link into pnpm's
  // store) is not there inside the jail.
  const executable = realpathSync(found);
  const readOnly = [installationOf(executable)];
  const interpreter = interpreterOf(executable, path);
  if (interpreter) readOnly.push(installationOf(interpreter));
  // The runner's own node runs the relay inside the jail.
  const node = process.execPath;
  readOnly.push(installationOf(node));
  if (host.python) readOnly.push(...host.python.prefixes);
  for (const extra of request.readOnly ?? []) if (isAbsolute(extra) && existsSync(extra)) readOnly.push(resolve(extra));

  // As root the agent gets a uid of its own, leased like a deliverable run's; never uid 0.
  let uid: number | undefined;
  if (host.isRoot) {
    uid = takeSlotUid();
    if (uid === undefined) {
      throw new SkillrigError(
        "sandbox_unavailable",
        "agent jail: every per-run uid of this machine's range is held by a run, and the agent never runs as root; lower the number of parallel jobs",
      );
    }
  }
  const runnerUid = process.getuid?.() ?? 0;
  const runnerGid = process.getgid?.() ?? 0;
  const writable = [request.workspace, ...(request.writable ?? [])].map((p) => resolve(p));
  const scratch = mkdtempSync(join(tmpdir(), "skillrig-jail-"));
  let relay: EgressRelay | undefined;
  const release = async () => {
    await relay?.close();
    rmSync(scratch, { recursive: true, force: true });
    if (uid === undefined) return;
    // Nothing of the agent may meet the uid's next holder (the pid namespace ended it already; this is the net).
    sweepProcessesOfUid(uid);
    // The run's folders go back to the runner: what the agent wrote is data the runner reads, and the uid's next
    // holder (another run's code) must not own it.
    for (const folder of writable) if (existsSync(folder)) giveCaseFolderTo(folder, runnerUid, runnerGid);
    releaseSlotUid(uid);
    uid = undefined;
  };
  try {
    return await jailed(request, {
      host,
      executable,
      programArgs,
      readOnly,
      writable,
      uid,
      scratch,
      setRelay: (r) => (relay = r),
      release,
    });
  } catch (error) {
    await release();
    throw error;
  }
}

interface JailPlan {
  host: HostProbe;
  executable: string;
  programArgs: string[];
  readOnly: string[];
  writable: string[];
  uid: number | undefined;
  scratch: string;
  setRelay(relay: EgressRelay): void;
  release(): Promise<void>;
}

/** Linux counts a uid's processes per user namespace since 5.14 (ucounts); before, across the machine. */
export function countsProcessesPerUserNamespace(kernel: string = release()): boolean {
  const [major = 0, minor = 0] = kernel.split(/[.-]/).map(Number);
  return major > 5 || (major === 5 && minor >= 14);
}

/**
 * The agent's rlimits, set inside the jail before the uid switch: the largest file (RLIMIT_FSIZE), no core dumps, and
 * its processes (RLIMIT_NPROC). RLIMIT_NPROC counts the processes (threads included) of a real uid: as root the agent's
 * uid is its own (leased per run), so the count is this run's alone; unprivileged the jail has its own user namespace,
 * and the kernel counts a uid's processes per user namespace (since Linux 5.14), so the count is again this jail's.
 * On an older kernel, unprivileged, it would count every process of the runner's user: not set, and said.
 */
function agentRlimits(host: HostProbe, request: AgentJailRequest, warnings: string[]): string[] {
  const limits = request.limits ?? {};
  const processes = Math.floor(limits.processes ?? DEFAULT_AGENT_BOUNDS.processes);
  const fileBytes = Math.floor(limits.fileBytes ?? DEFAULT_AGENT_BOUNDS.fileBytes);
  const countable = host.isRoot || countsProcessesPerUserNamespace();
  if (!countable)
    warnings.push(
      `agent jail: the agent's processes are not limited (sandbox.agent.processes): this kernel (${release()}) counts them across the runner's user, not per jail (Linux 5.14 or later does); run as root for a per-run uid`,
    );
  return [host.prlimit ?? "prlimit", ...(countable ? [`--nproc=${processes}`] : []), `--fsize=${fileBytes}`, "--core=0", "--"];
}

/** The lowest port an unprivileged process may bind (`net.ipv4.ip_unprivileged_port_start`, per network namespace). */
const UNPRIVILEGED_PORT_START = 1024;

async function jailed(request: AgentJailRequest, plan: JailPlan): Promise<ConfinedCommand> {
  const { host, executable, programArgs, readOnly, writable, uid, scratch } = plan;
  if (uid !== undefined) for (const folder of writable) if (existsSync(folder)) giveCaseFolderTo(folder, uid);
  const env: Record<string, string> = { ...request.env };
  for (const name of DROPPED_VARIABLES) delete env[name];
  const node = process.execPath;

  const endpoint = modelEndpointOf(request.modelBaseUrl);
  const network: AgentNetworkPolicy = endpoint ? "model-endpoint-only" : "none";
  const extraBinds: string[] = [];
  // Files bubblewrap reads from descriptors the launcher opens: the seccomp filter (fd 9), and the value written to
  // the jail's own ip_unprivileged_port_start (fd 8) when the relay, running unprivileged, must listen below 1024.
  const userNamespaces = request.userNamespaces === true;
  const filter = agentFilter(userNamespaces);
  const filterFile = join(scratch, "seccomp.bpf");
  if (filter) writeFileSync(filterFile, filter, { mode: 0o600 });
  let portStartFile: string | undefined;
  let relaySocket = "";
  if (endpoint) {
    const relay = await startEgressRelay(
      isLoopback(endpoint.host) ? { host: endpoint.host === "localhost" ? "127.0.0.1" : endpoint.host, port: endpoint.port } : endpoint,
      uid,
    );
    plan.setRelay(relay);
    relaySocket = relay.socketPath;
    extraBinds.push("--bind", relay.folder, relay.folder);
    const hosts = hostsFileFor(endpoint, scratch);
    if (hosts) extraBinds.push("--ro-bind", hosts, "/etc/hosts");
    if (endpoint.port < UNPRIVILEGED_PORT_START) {
      portStartFile = join(scratch, "ip_unprivileged_port_start");
      writeFileSync(portStartFile, `${endpoint.port}\n`, { mode: 0o600 });
    }
  }
  const masks: string[] = [];
  for (const file of MASKED_FILES) {
    if (!existsSync(file)) continue;
    if (lstatSync(file).isDirectory()) masks.push("--tmpfs", file);
    else masks.push("--ro-bind", "/dev/null", file);
  }

  const warnings: string[] = [];
  const bwrapArgs = [
    ...(host.isRoot
      ? ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
      : // Unprivileged: the user namespace maps the runner's uid; no capability in it, and no user namespace below it.
        // (--disable-userns only when the engine's own sandbox needs none.)
        ["--unshare-all", "--unshare-user", ...(userNamespaces ? [] : ["--disable-userns"]), "--cap-drop", "ALL"]),
    "--die-with-parent",
    // A new session: the agent cannot push keystrokes into the runner's terminal (TIOCSTI).
    "--new-session",
    "--hostname",
    "skillrig-agent",
    ...systemBinds(),
    ...masks,
    "--proc",
    "/proc",
    ...(portStartFile ? ["--file", "8", "/proc/sys/net/ipv4/ip_unprivileged_port_start"] : []),
    // Kernel tunables are read-only inside (bubblewrap leaves /proc/sys writable for root).
    "--ro-bind",
    "/proc/sys",
    "/proc/sys",
    "--dev",
    "/dev",
    "--perms",
    "1777",
    // A tmpfs is memory: sized, or it could take half the host's RAM.
    "--size",
    String(Math.floor(request.limits?.tmpBytes ?? DEFAULT_AGENT_BOUNDS.tmpBytes)),
    "--tmpfs",
    "/tmp",
    ...folderBinds(readOnly, writable),
    ...extraBinds,
    "--chdir",
    request.workspace,
    ...(filter ? ["--seccomp", "9"] : []),
    "--",
    ...agentRlimits(host, request, warnings),
    // As root: the per-run uid, its own group only, no capability now or after any exec (setuid programs included).
    ...(uid !== undefined
      ? [
          host.setpriv as string,
          `--reuid=${uid}`,
          `--regid=${uid}`,
          "--clear-groups",
          "--inh-caps=-all",
          "--bounding-set=-all",
          "--no-new-privs",
          "--",
        ]
      : []),
    ...(endpoint ? [node, "-e", RELAY_SCRIPT, String(endpoint.port), relaySocket, executable] : [executable]),
    ...programArgs,
  ];
  // bubblewrap reads the filter (and the port value) from descriptors: a shell opens them and execs bubblewrap, so
  // the command stays a plain file + arguments for any caller.
  // Descriptors the runner inherited without close-on-exec (from a shell, a CI agent) would pass into the jail: the
  // launcher closes them first (bash: the one standard shell that closes descriptors above 9), as for deliverables.
  const inherited = inheritableDescriptors();
  const closeInherited = inherited.length > 0 ? `exec ${inherited.map((fd) => `${fd}>&-`).join(" ")}; ` : "";
  const launcher = `${closeInherited}f=$1; p=$2; shift 2; exec "$@"${filter ? ' 9<"$f"' : ""}${portStartFile ? ' 8<"$p"' : ""}`;
  return {
    file: inherited.length > 0 ? "/bin/bash" : "/bin/sh",
    args: ["-c", launcher, "skillrig-agent-jail", filterFile, portStartFile ?? "", host.bwrap as string, ...bwrapArgs],
    env,
    isolation: "namespaces",
    network,
    uid: uid ?? process.getuid?.() ?? 0,
    capabilities: "none",
    seccomp: filter !== undefined,
    userNamespaces,
    warnings,
    close: plan.release,
  };
}
