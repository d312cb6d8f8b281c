/**
 * How one run is started at each isolation level: the command line that wraps the deliverable's own
 * command, and the environment. Every wrapper here exec()s into the next, so the only extra processes
 * are bubblewrap's two (its monitor outside and its pid 1 inside the namespace).
 */
import { randomUUID } from "node:crypto";
import { existsSync, lstatSync, readlinkSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import type { IsolationLevel, SandboxSpawnOptions } from "@skillrig/core";
import { scrubbedEnvironment } from "./environment.js";
import { type HostProbe, findExecutable, installationRoot } from "./host-probe.js";
import type { EffectiveLimits } from "./limits.js";
import { RUN_MARKER_VARIABLE } from "./process-tree.js";
import { userNamespaceFilter } from "./syscall-filter.js";
import { closeDescriptorsPrefix, inheritableDescriptors } from "./inherited-fds.js";

export type LevelName = "namespaces" | "rlimits" | "none";

export interface LaunchPlan {
  isolation: IsolationLevel;
  file: string;
  args: string[];
  env: Record<string, string>;
  /** bubblewrap writes `{"child-pid": N}` (its pid 1, as seen from the host) on fd 3. */
  infoFd: boolean;
  /** A compiled seccomp filter bubblewrap reads from fd 4 (`--seccomp 4`) and applies to the code. */
  seccompFilter?: Buffer;
  /** bubblewrap's init exits 128+n when the command died of signal n. */
  exitCodeEncodesSignal: boolean;
  /** Marks every process of the run in its environment, to sweep detached ones (no pid namespace). */
  marker?: string;
  /** The uid that must own the case folder so the dropped-privilege code can write there. */
  caseOwner?: number;
  /** Read-only folders the dropped-privilege code reaches through the host's own tree (no mount namespace). */
  mustReach?: string[];
}

/** Folders bound read-only into the namespace sandbox: the system, never /root, /home, /work or /tmp. */
const SYSTEM_FOLDERS = ["/usr", "/etc", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];

function rlimitArgs(limits: EffectiveLimits, withProcesses: number | undefined): string[] {
  const cpuSeconds = Math.max(1, Math.ceil(limits.cpuMs / 1000));
  const args = [
    // Soft limit sends SIGXCPU (reported as cpuLimited); the hard one a second later is SIGKILL.
    `--cpu=${cpuSeconds}:${cpuSeconds + 1}`,
    `--as=${Math.floor(limits.memoryBytes)}`,
    `--fsize=${Math.floor(limits.fileSizeBytes)}`,
    "--core=0",
  ];
  if (withProcesses !== undefined) args.push(`--nproc=${Math.floor(withProcesses)}`);
  return args;
}

/** The interpreter the command names, made absolute so the sandbox runs the user's python3, not whatever is in /usr/bin. */
function resolveProgram(command: string[], host: HostProbe): { argv: string[]; readable: string[]; pathPrefix: string[] } {
  const [program, ...rest] = command;
  if (!program) return { argv: command, readable: [], pathPrefix: [] };
  if ((program === "python3" || program === "python") && host.python) {
    const bin = dirname(host.python.executable);
    return { argv: [host.python.executable, ...rest], readable: host.python.prefixes, pathPrefix: [bin] };
  }
  if (!program.includes("/")) {
    const found = findExecutable(program);
    if (found && !SYSTEM_FOLDERS.some((dir) => found.startsWith(`${dir}/`))) {
      return { argv: [found, ...rest], readable: [installationRoot(found)], pathPrefix: [] };
    }
  }
  return { argv: command, readable: [], pathPrefix: [] };
}

/** bwrap arguments that recreate a system folder: symlinks stay symlinks (merged-/usr Debian). */
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
 * setpriv to an unprivileged uid: no capabilities left, and setuid programs (su, mount) cannot raise them again.
 * `keepUidSwitch` (a sample host, see SampleUidSupport) keeps CAP_SETUID, CAP_SETGID and CAP_SETPCAP and nothing else, so the
 * process can move each child to a per-sample uid; that child must drop them itself before any untrusted code runs.
 */
function dropPrivileges(host: HostProbe, uid: number, keepUidSwitch = false): string[] {
  // CAP_SETPCAP only lets the sample host empty each child's bounding set before that child's uid switch.
  const caps = keepUidSwitch ? "-all,+setuid,+setgid,+setpcap" : "-all";
  return [
    host.setpriv ?? "setpriv",
    `--reuid=${uid}`,
    `--regid=${uid}`,
    "--clear-groups",
    `--inh-caps=${caps}`,
    ...(keepUidSwitch ? [`--ambient-caps=${caps}`] : []),
    `--bounding-set=${caps}`,
    "--no-new-privs",
    "--",
  ];
}

function isWithin(path: string, folder: string): boolean {
  return path === folder || path.startsWith(folder.endsWith("/") ? folder : `${folder}/`);
}

/**
 * Binds the read-only folders and the case folder (writable), parents before children. bubblewrap would
 * create missing parent folders as 0700 root, which the unprivileged code could not enter, so we create
 * them ourselves as 0755 (still read-only to the code).
 */
function bindFolders(readOnly: string[], caseFolder: string): string[] {
  const binds = [...new Set(readOnly)].map((path) => ({ path, writable: false }));
  binds.push({ path: caseFolder, writable: true });
  binds.sort((a, b) => a.path.length - b.path.length);
  const premounted = [...SYSTEM_FOLDERS, "/tmp", "/proc", "/dev"];
  const args: string[] = [];
  const made = new Set<string>();
  const bound: string[] = [];
  for (const bind of binds) {
    const parts = bind.path.split("/").filter(Boolean);
    for (let i = 1; i < parts.length; i++) {
      const ancestor = `/${parts.slice(0, i).join("/")}`;
      if (made.has(ancestor) || premounted.some((dir) => isWithin(dir, ancestor) && dir === ancestor)) continue;
      if (bound.some((dir) => isWithin(ancestor, dir))) continue; // already inside a bind: exists there
      made.add(ancestor);
      args.push("--perms", "0755", "--dir", ancestor);
    }
    args.push(bind.writable ? "--bind" : "--ro-bind", bind.path, bind.path);
    bound.push(bind.path);
  }
  return args;
}

/**
 * Ties the run's life to ours: if the runner dies (even by SIGKILL, when no exit hook runs) the kernel
 * kills the sandbox's first process, and bubblewrap's --die-with-parent takes the namespace with it.
 */
function dieWithRunner(host: HostProbe): string[] {
  return host.parentDeathSignal && host.setpriv ? [host.setpriv, "--pdeathsig=SIGKILL", "--"] : [];
}

export interface PlanInput {
  options: Pick<SandboxSpawnOptions, "command" | "cwd" | "readOnlyPaths" | "env">;
  limits: EffectiveLimits;
  host: HostProbe;
  /** For the rlimits level run as root: a uid of its own, so the process count limit is per run. */
  slotUid?: number;
  /** Root at level namespaces only: keep CAP_SETUID/CAP_SETGID so the process can give children per-sample uids. */
  keepUidSwitch?: boolean;
}

export function planLaunch(level: LevelName, input: PlanInput): LaunchPlan {
  const { options, limits, host } = input;
  const cwd = resolve(options.cwd);
  const resolved = resolveProgram(options.command, host);
  // Descriptors the runner inherited without close-on-exec are closed right before the code: see inherited-fds.ts.
  const program = { ...resolved, argv: [...closeDescriptorsPrefix(inheritableDescriptors()), ...resolved.argv] };
  if (level === "namespaces") {
    const env = scrubbedEnvironment({ cwd, pathPrefix: program.pathPrefix, extra: options.env });
    const readable = [...program.readable, ...(options.readOnlyPaths ?? []).map((p) => resolve(p))];
    const asRoot = host.isRoot;
    if (asRoot && input.slotUid === undefined) throw new Error("planLaunch: a root namespace run needs a slot uid");
    // As root there is no user namespace whose --disable-userns would stop the code making its own: see syscall-filter.ts.
    const seccompFilter = asRoot ? userNamespaceFilter() : undefined;
    const args = [
      // As root bubblewrap needs no user namespace (and must not make one: the per-run uid below must be a
      // real host uid for its process budget). Unprivileged, the user namespace makes the budget per run.
      ...(asRoot
        ? ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
        : ["--unshare-all", "--unshare-user", "--disable-userns"]),
      "--die-with-parent",
      "--new-session",
      "--hostname",
      "sandbox",
      ...systemBinds(),
      "--proc",
      "/proc",
      "--dev",
      "/dev",
      // A private /tmp: code that writes there by habit works, and nothing reaches the host's /tmp.
      "--perms",
      "1777",
      "--size",
      String(Math.floor(limits.fileSizeBytes)),
      "--tmpfs",
      "/tmp",
      ...bindFolders(
        readable.filter((p) => isAbsolute(p) && existsSync(p)),
        cwd,
      ),
      "--chdir",
      cwd,
      "--remount-ro",
      "/",
      "--info-fd",
      "3",
      ...(seccompFilter ? ["--seccomp", "4"] : []),
      "--",
      host.prlimit ?? "prlimit",
      // Unprivileged, bubblewrap's own pid 1 runs under the same uid and counts against the budget.
      ...rlimitArgs(limits, asRoot ? limits.maxProcesses : limits.maxProcesses + 1),
      "--",
      ...(asRoot ? dropPrivileges(host, input.slotUid as number, input.keepUidSwitch === true) : []),
      ...program.argv,
    ];
    const [file, ...wrapperArgs] = [...dieWithRunner(host), host.bwrap ?? "bwrap", ...args];
    return {
      isolation: "namespaces",
      file: file as string,
      args: wrapperArgs,
      env,
      infoFd: true,
      ...(seccompFilter ? { seccompFilter } : {}),
      exitCodeEncodesSignal: true,
      caseOwner: asRoot ? input.slotUid : undefined,
    };
  }

  const marker = randomUUID();
  const env = scrubbedEnvironment({
    cwd,
    pathPrefix: program.pathPrefix,
    extra: { ...options.env, [RUN_MARKER_VARIABLE]: marker },
  });
  // As root, the code never keeps uid 0, at any level: it runs as the per-run uid with no capability (the bounding
  // set included) and no_new_privs. createSandbox refuses a run whose program that uid cannot reach
  // (refuseUnreachableProgram).
  if (host.isRoot && (input.slotUid === undefined || !host.setpriv)) {
    throw new Error(`planLaunch: a root run at level "${level}" needs a slot uid and setpriv`);
  }
  const slotUid = host.isRoot ? (input.slotUid as number) : undefined;
  // setpriv applies --pdeathsig after the uid change (which would clear it), so one setpriv does both.
  const deathSignal = host.parentDeathSignal ? ["--pdeathsig=SIGKILL"] : [];
  // As another user the code keeps that user's uid (nothing else is possible without privileges), but never gains
  // more: no_new_privs stops setuid programs (sudo with a cached password, su) from raising it.
  const drop =
    slotUid !== undefined
      ? [...dropPrivileges(host, slotUid).slice(0, -1), ...deathSignal, "--"]
      : host.setpriv
        ? [host.setpriv, "--no-new-privs", ...deathSignal, "--"]
        : [];
  const dropped = {
    marker,
    caseOwner: slotUid,
    mustReach: slotUid === undefined ? undefined : (options.readOnlyPaths ?? []).map((p) => resolve(p)),
  };
  if (level === "rlimits" && host.prlimit) {
    // RLIMIT_NPROC only where it counts this run alone (its own uid); as the runner's user it would count theirs.
    const args = [...rlimitArgs(limits, slotUid === undefined ? undefined : limits.maxProcesses), "--", ...drop, ...program.argv];
    return { isolation: "rlimits", file: host.prlimit, args, env, infoFd: false, exitCodeEncodesSignal: false, ...dropped };
  }
  // Level none: no namespaces and no rlimits, but as root still the per-run uid without capabilities: "none" names
  // the isolation of the file system and the network, never permission to run untrusted code as root.
  const [file, ...args] = [...drop, ...program.argv];
  return { isolation: "none", file: file as string, args, env, infoFd: false, exitCodeEncodesSignal: false, ...dropped };
}

/**
 * The files and folders a `command` needs a per-run uid to reach at a level without a mount namespace: the
 * program (and, for python3, its installation). The caller checks them with `closedToOthers`.
 */
export function programNeeds(command: string[], host: HostProbe, cwd: string): Array<{ path: string; need: "run" | "read" }> {
  const resolved = resolveProgram(command, host);
  const program = resolved.argv[0];
  if (!program) return [];
  const needs: Array<{ path: string; need: "run" | "read" }> = [];
  const executable = program.includes("/") ? program : findExecutable(program);
  if (executable) needs.push({ path: resolve(cwd, executable), need: "run" });
  for (const folder of resolved.readable) needs.push({ path: folder, need: "read" });
  return needs;
}
