/**
 * The agent profile: how an engine CLI (and every tool command its agent runs) is confined. bubblewrap builds a
 * world holding only the system read-only, the engine's own installation (its node_modules tree and node)
 * read-only, the run's workspace and the engine's per-job folder (HOME, TMPDIR) writable, and nothing else of
 * the host: no task files, other runs, server data or config, no host /tmp, no user home. Its own pid namespace
 * hides the runner (no /proc/<ppid>/cmdline to read a task path from) and ends every process the agent started
 * when the engine ends. Its own network namespace leaves only loopback; the model endpoint is reached through
 * the egress relay (egress-proxy.ts), and nothing else is.
 *
 * Levels: "namespaces" (this jail) or "none" (the engine runs as the runner's child, as before), chosen by the
 * same host probe as deliverables; a fallback is reported in `warnings` and in the job's result.
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
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join, resolve, sep } from "node:path";
import { type AgentConfinement, type AgentJailRequest, type ConfinedCommand, SkillrigError } from "@skillrig/core";
import { type EgressRelay, type ModelEndpoint, modelEndpointOf, RELAY_SCRIPT, startEgressRelay } from "./egress-proxy.js";
import { findExecutable, type HostProbe, installationRoot, probeHost } from "./host-probe.js";

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

/** Read-only and writable binds, parents first; a folder inside an earlier bind is bound again over it. */
function folderBinds(readOnly: string[], writable: string[]): string[] {
  const binds = [
    ...[...new Set(readOnly)].filter((p) => !isSystemPath(p)).map((path) => ({ path, writable: false })),
    ...[...new Set(writable)].map((path) => ({ path, writable: true })),
  ].sort((a, b) => a.path.length - b.path.length);
  const args: string[] = [];
  for (const bind of binds) args.push(bind.writable ? "--bind" : "--ro-bind", bind.path, bind.path);
  return args;
}

export interface AgentLevelProbe {
  level: AgentIsolation;
  /** Why the jail is not available, when it is not. */
  reason?: string;
}

/** Can this machine build the agent jail? Same probe as deliverables: bubblewrap builds its namespaces here. */
export function agentJailAvailability(host: HostProbe = probeHost()): AgentLevelProbe {
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
  const unconfined = (warning: string): ConfinedCommand => ({
    file: program,
    args: programArgs,
    env: request.env,
    isolation: "none",
    network: "host",
    warnings: [warning],
    close: async () => {},
  });
  if (options.level === "none") {
    return unconfined(
      'agent jail: the engine runs unconfined (level "none" was chosen): it can read and write whatever the runner can, and reach any network',
    );
  }
  const availability = agentJailAvailability(host);
  if (availability.level === "none") {
    return unconfined(
      `agent jail: the engine runs unconfined because the jail is not available here (${availability.reason}); it can read and write whatever the runner can, and reach any network`,
    );
  }

  const path = request.env.PATH ?? process.env.PATH ?? "/usr/bin:/bin";
  const executable = findExecutable(program, path);
  if (!executable || !existsSync(executable)) {
    throw new SkillrigError("engine_not_found", `agent jail: cannot find the engine's executable ${program}`, { file: program });
  }
  const readOnly = [installationOf(executable)];
  const interpreter = interpreterOf(executable, path);
  if (interpreter) readOnly.push(installationOf(interpreter));
  // The runner's own node runs the relay inside the jail.
  const node = process.execPath;
  readOnly.push(installationOf(node));
  if (host.python) readOnly.push(...host.python.prefixes);
  for (const extra of request.readOnly ?? []) if (isAbsolute(extra) && existsSync(extra)) readOnly.push(resolve(extra));

  const scratch = mkdtempSync(join(tmpdir(), "skillrig-jail-"));
  const env: Record<string, string> = { ...request.env };
  for (const name of DROPPED_VARIABLES) delete env[name];

  const endpoint = modelEndpointOf(request.modelBaseUrl);
  let relay: EgressRelay | undefined;
  const network: AgentNetworkPolicy = endpoint ? "model-endpoint-only" : "none";
  const extraBinds: string[] = [];
  if (endpoint) {
    relay = await startEgressRelay(
      isLoopback(endpoint.host) ? { host: endpoint.host === "localhost" ? "127.0.0.1" : endpoint.host, port: endpoint.port } : endpoint,
    );
    extraBinds.push("--bind", relay.folder, relay.folder);
    const hosts = hostsFileFor(endpoint, scratch);
    if (hosts) extraBinds.push("--ro-bind", hosts, "/etc/hosts");
  }
  const masks: string[] = [];
  for (const file of MASKED_FILES) {
    if (!existsSync(file)) continue;
    if (lstatSync(file).isDirectory()) masks.push("--tmpfs", file);
    else masks.push("--ro-bind", "/dev/null", file);
  }

  const bwrapArgs = [
    ...(host.isRoot
      ? ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
      : ["--unshare-all", "--unshare-user"]),
    "--die-with-parent",
    // A new session: the agent cannot push keystrokes into the runner's terminal (TIOCSTI).
    "--new-session",
    "--hostname",
    "skillrig-agent",
    ...systemBinds(),
    ...masks,
    "--proc",
    "/proc",
    "--dev",
    "/dev",
    "--perms",
    "1777",
    "--tmpfs",
    "/tmp",
    ...folderBinds(readOnly, [request.workspace, ...(request.writable ?? [])]),
    ...extraBinds,
    "--chdir",
    request.workspace,
    "--",
    ...(relay && endpoint ? [node, "-e", RELAY_SCRIPT, String(endpoint.port), relay.socketPath, executable] : [executable]),
    ...programArgs,
  ];
  return {
    file: host.bwrap as string,
    args: bwrapArgs,
    env,
    isolation: "namespaces",
    network,
    warnings: [],
    close: async () => {
      await relay?.close();
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}
