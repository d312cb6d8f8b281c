/**
 * Isolated Python environments for a skill's `runtime.dependencies`.
 *
 * The spec names `uv run --with ...`; uv is not packaged for npm or Debian (bookworm) and cannot be fetched
 * here, so environments are built with the standard library's `venv` and pip: `python -m venv --without-pip`,
 * then the host's pip installs into it (`pip --python <env>`; an env with its own pip from ensurepip when the host
 * has no pip >= 22.3), from `find_links` folders only (`--no-index`)
 * unless an `index_url` is configured. One environment per hash of (interpreter version, sorted dependencies,
 * sources), so the same dependency list reuses the same environment; a `.skillrig-ready` marker is written only
 * after a complete install, and a lock folder keeps two jobs from building the same environment at once.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { execa, type ExecaError } from "execa";
import { SkillrigError } from "@skillrig/core";

export interface PythonEnvOptions {
  /** Interpreter that creates the environment. Default: python<version> when on PATH, else python3. */
  interpreter?: string;
  /** major.minor the skill asks for (`runtime.version`). */
  version?: string;
  /** Wheel/sdist folders (absolute). */
  findLinks?: string[];
  indexUrl?: string;
  /** Folder holding the cached environments (absolute). */
  envDir: string;
  signal?: AbortSignal;
}

export interface PythonEnv {
  dir: string;
  bin: string;
  python: string;
  hash: string;
  /** True when an existing environment was reused. */
  reused: boolean;
  /** The interpreter's major.minor. */
  pythonVersion: string;
  warnings: string[];
}

const READY = ".skillrig-ready";

/** The interpreter's major.minor and its real executable (a pyenv shim costs seconds per call; the binary does not). */
async function probeInterpreter(python: string): Promise<{ version: string; executable: string } | undefined> {
  try {
    const r = await execa(python, ["-c", "import sys; print('%d.%d' % sys.version_info[:2]); print(sys.executable)"]);
    const [version, executable] = r.stdout.trim().split("\n");
    return version && executable ? { version, executable } : undefined;
  } catch {
    return undefined;
  }
}

async function pickInterpreter(options: PythonEnvOptions): Promise<{ python: string; version: string; warnings: string[] }> {
  const warnings: string[] = [];
  const candidates = options.interpreter ? [options.interpreter] : [...(options.version ? [`python${options.version}`] : []), "python3"];
  for (const python of candidates) {
    const probe = await probeInterpreter(python);
    if (!probe) continue;
    const { version } = probe;
    if (options.version && version !== options.version && !version.startsWith(`${options.version}.`)) {
      warnings.push(
        `the skill asks for Python ${options.version}; no python${options.version} was found, so its environment uses ${python} (Python ${version})`,
      );
    }
    return { python: probe.executable, version, warnings };
  }
  throw new SkillrigError(
    "runtime_unavailable",
    `no Python interpreter found to build the skill's environment (tried ${candidates.join(", ")})`,
    {
      field: "runtime.version",
      hint: "install python3, or set skills.python.interpreter in skillrig.config",
    },
  );
}

function sleep(ms: number) {
  return new Promise((r) => setTimeout(r, ms));
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Returns the ready environment for `dependencies`, building it when it does not exist yet. */
export async function ensurePythonEnv(dependencies: string[], options: PythonEnvOptions): Promise<PythonEnv> {
  const { python, version, warnings } = await pickInterpreter(options);
  const deps = [...new Set(dependencies)].sort();
  const findLinks = (options.findLinks ?? []).map((f) => resolve(f));
  const hash = createHash("sha256")
    .update(JSON.stringify({ version, deps, findLinks, indexUrl: options.indexUrl ?? null }))
    .digest("hex")
    .slice(0, 16);
  const dir = join(options.envDir, `py${version}-${hash}`);
  const bin = join(dir, "bin");
  const env: PythonEnv = { dir, bin, python: join(bin, "python"), hash, reused: true, pythonVersion: version, warnings };
  if (existsSync(join(dir, READY))) return env;

  mkdirSync(options.envDir, { recursive: true });
  const lock = `${dir}.lock`;
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, "pid"), String(process.pid));
      break;
    } catch {
      if (existsSync(join(dir, READY))) return env;
      const holder = Number(readFileSafe(join(lock, "pid")));
      if (holder && !pidAlive(holder)) rmSync(lock, { recursive: true, force: true });
      else await sleep(200);
    }
  }
  try {
    if (existsSync(join(dir, READY))) return env;
    rmSync(dir, { recursive: true, force: true }); // a half-built env from an interrupted run
    // The host's pip installs into the env when it can (`--python`, pip >= 22.3): no pip copy per env, faster.
    // Otherwise the env gets its own pip from ensurepip.
    const hostPip = deps.length > 0 && (await hostPipSupportsPython(python));
    await run(
      python,
      ["-m", "venv", ...(hostPip || deps.length === 0 ? ["--without-pip"] : []), dir],
      "create the virtual environment",
      options.signal,
    );
    const sources = options.indexUrl ? ["--index-url", options.indexUrl] : ["--no-index"];
    for (const f of findLinks) sources.push("--find-links", f);
    if (deps.length > 0) {
      const pip = hostPip ? [python, "-m", "pip", "--python", env.python] : [env.python, "-m", "pip"];
      await run(
        pip[0]!,
        [...pip.slice(1), "install", "--disable-pip-version-check", "--no-input", ...sources, ...deps],
        `install ${deps.join(", ")}`,
        options.signal,
      );
    }
    writeFileSync(join(dir, READY), JSON.stringify({ dependencies: deps, python: version, created_at: new Date().toISOString() }, null, 2));
    env.reused = false;
    return env;
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

async function hostPipSupportsPython(python: string): Promise<boolean> {
  try {
    const r = await execa(python, ["-m", "pip", "--version"]);
    const [major = 0, minor = 0] = (/^pip (\d+)\.(\d+)/.exec(r.stdout)?.slice(1) ?? []).map(Number);
    return major > 22 || (major === 22 && minor >= 3);
  } catch {
    return false;
  }
}

function readFileSafe(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

async function run(file: string, args: string[], what: string, signal?: AbortSignal) {
  try {
    await execa(file, args, { cancelSignal: signal, all: true, env: { PIP_CONFIG_FILE: "/dev/null" } });
  } catch (error) {
    const e = error as ExecaError;
    const output = String(e.all ?? e.stderr ?? "")
      .trim()
      .split("\n")
      .slice(-15)
      .join("\n");
    throw new SkillrigError(
      "runtime_unavailable",
      `could not ${what} for the skill's Python runtime: ${e.shortMessage ?? e.message}${output ? `\n${output}` : ""}`,
      {
        field: "runtime.dependencies",
        details: { command: e.command, exitCode: e.exitCode },
        hint: "put wheels of these packages in a folder listed in skills.python.find_links (pip download / pip wheel on a machine with an index), or set skills.python.index_url",
        cause: error,
      },
    );
  }
}
