/**
 * What this machine offers, probed once per process: which tools exist (bubblewrap, prlimit, setpriv),
 * whether bubblewrap can really build its namespaces here (containers and hardened kernels often forbid
 * user namespaces), and which python3 the user has, so the sandbox can make that same interpreter visible.
 */
import { spawnSync } from "node:child_process";
import { accessSync, closeSync, constants, openSync, readSync, realpathSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { SYSTEM_PATH } from "./environment.js";
import { hostFingerprint, readCachedProbe, writeCachedProbe } from "./probe-cache.js";
import { SLOT_UID_BASE, releaseSlotUid, takeSlotUid } from "./slot-uids.js";

export interface PythonInstallation {
  /** The real interpreter behind `python3` on the user's PATH (through pyenv shims and the like). */
  executable: string;
  /** sys.prefix and sys.base_prefix: the folders the interpreter needs to read. */
  prefixes: string[];
}

export interface HostProbe {
  isRoot: boolean;
  bwrap?: string;
  prlimit?: string;
  setpriv?: string;
  /** setpriv knows --pdeathsig (util-linux 2.33+): the sandbox dies with the runner even if it is SIGKILLed. */
  parentDeathSignal: boolean;
  /** Set when bubblewrap is installed and a trial sandbox started. */
  namespacesWork: boolean;
  /** Why the trial sandbox failed, when it did. */
  namespacesError?: string;
  python?: PythonInstallation;
}

/** Finds `name` on `searchPath` (the host's PATH), like `command -v`. */
export function findExecutable(name: string, searchPath: string = process.env.PATH ?? SYSTEM_PATH): string | undefined {
  if (name.includes("/")) return name;
  for (const dir of [...searchPath.split(delimiter), ...SYSTEM_PATH.split(":")]) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // keep looking
    }
  }
  return undefined;
}

function isNativeExecutable(path: string): boolean {
  try {
    const head = Buffer.alloc(4);
    const fd = openSync(path, "r");
    try {
      readSync(fd, head, 0, 4, 0);
    } finally {
      closeSync(fd);
    }
    return head.equals(Buffer.from([0x7f, 0x45, 0x4c, 0x46])); // ELF
  } catch {
    return false;
  }
}

function probePython(): PythonInstallation | undefined {
  const found = findExecutable("python3");
  if (!found) return undefined;
  // A pyenv shim is a bash script that may take seconds on a loaded machine; a probe that gives up too soon would
  // leave the sandbox running the shim (unreadable to the per-run uid) instead of the interpreter.
  const probe = spawnSync(found, ["-c", "import sys,json;print(json.dumps([sys.executable,sys.prefix,sys.base_prefix]))"], {
    encoding: "utf8",
    timeout: 60_000,
  });
  if (probe.status !== 0) return undefined;
  try {
    const [reported, prefix, basePrefix] = JSON.parse(probe.stdout.trim()) as string[];
    if (!reported) return undefined;
    // The python3 found on PATH, when it is the interpreter itself (a virtualenv's bin/python3 is a symlink to
    // one, and only started by that path does Python find the venv's packages); what it reports when the PATH
    // entry is a wrapper script (pyenv's shims).
    const executable = isNativeExecutable(found) ? found : reported;
    // Bind the venv, its base installation, and the folder the binary really lives in (symlinks resolved).
    const folders = [prefix, basePrefix, installationRoot(realpathSync(executable))].filter((p): p is string => Boolean(p));
    return { executable, prefixes: [...new Set(folders)] };
  } catch {
    return undefined;
  }
}

let cached: HostProbe | undefined;

/**
 * Probes once per process, and across processes through the probe cache (probe-cache.ts) while the tools and
 * kernel settings stay the same; `fresh` re-probes and refreshes the cache (tests).
 */
export function probeHost(fresh = false): HostProbe {
  if (cached && !fresh) return cached;
  const isRoot = process.getuid?.() === 0;
  const bwrap = findExecutable("bwrap");
  const prlimit = findExecutable("prlimit");
  const setpriv = findExecutable("setpriv");
  const fingerprint = hostFingerprint({ bwrap, prlimit, setpriv, python3: findExecutable("python3") });
  const hit = fresh ? undefined : readCachedProbe(fingerprint);
  if (hit) {
    cached = hit;
    return hit;
  }
  const parentDeathSignal =
    setpriv !== undefined && spawnSync(setpriv, ["--help"], { encoding: "utf8", timeout: 10_000 }).stdout?.includes("--pdeathsig") === true;
  const probe: HostProbe = { isRoot, bwrap, prlimit, setpriv, parentDeathSignal, namespacesWork: false, python: probePython() };
  if (!bwrap)
    probe.namespacesError = "bubblewrap (bwrap) is not installed; run `bash scripts/setup-system.sh` or `apt-get install bubblewrap`";
  else if (!prlimit) probe.namespacesError = "prlimit (util-linux) is missing, so no resource limits could be set inside bubblewrap";
  else if (isRoot && !setpriv) probe.namespacesError = "setpriv (util-linux) is missing, so code cannot be dropped to an unprivileged user";
  else {
    // The trial runs as a real per-run uid, claimed like any run's, so it never shares one with a running case.
    const trialUid = isRoot ? (takeSlotUid() ?? SLOT_UID_BASE) : SLOT_UID_BASE;
    const trial = [
      bwrap,
      ...(isRoot
        ? ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts"]
        : ["--unshare-all", "--unshare-user", "--disable-userns"]),
      "--die-with-parent",
      "--ro-bind",
      "/",
      "/",
      "--proc",
      "/proc",
      "--",
      // The per-run uids must be ones this root can switch to (a container may map only some).
      ...(isRoot ? [setpriv as string, `--reuid=${trialUid}`, `--regid=${trialUid}`, "--clear-groups", "--no-new-privs", "--"] : []),
      "/bin/true",
    ];
    const result = spawnSync(trial[0] as string, trial.slice(1), { encoding: "utf8", timeout: 10_000 });
    if (isRoot) releaseSlotUid(trialUid);
    if (result.status === 0) probe.namespacesWork = true;
    else
      probe.namespacesError = `bubblewrap could not create its namespaces here: ${(result.stderr || result.error?.message || `exit ${result.status}`).trim()}`;
  }
  cached = probe;
  writeCachedProbe(fingerprint, probe);
  return probe;
}

/** The folder that holds an executable's installation (…/bin/x -> …). */
export function installationRoot(executable: string): string {
  return dirname(dirname(executable));
}
