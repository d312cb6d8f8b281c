/** Child processes for the release checks: captured output, a wall-clock limit, and an environment without pnpm's. */
import { spawn } from "node:child_process";

export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * The environment a user's shell would have: this process's, minus what `pnpm test` adds (npm_config_*, pnpm's
 * own variables), which would otherwise steer npm in the user's project.
 */
export function userEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(npm_|pnpm_|PNPM_|VITEST|TURBO_)/i.test(key)) continue;
    env[key] = value;
  }
  return { ...env, NO_UPDATE_NOTIFIER: "1", npm_config_fund: "false", npm_config_audit: "false", ...extra };
}

/** Runs a command to its end (or kills it at `timeoutMs`); never rejects on a non-zero exit. */
export function run(
  command: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number; input?: string },
): Promise<Finished> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? userEnv(), stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    // A command that closes its stdin early (turbo does) must not turn the write into an unhandled EPIPE.
    child.stdin.on("error", () => {});
    child.stdin.end(options.input ?? "");
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 300_000);
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ code, signal, stdout, stderr });
    });
  });
}

export interface Started {
  match: RegExpMatchArray;
  output: () => string;
  /** Sends `signal` (default SIGTERM; to the whole process group when started with `group`) and waits for the end. */
  stop: (signal?: NodeJS.Signals) => Promise<Finished>;
}

/**
 * Starts a long-running command and resolves once `ready` matches its stdout. With `group`, the command leads a
 * process group of its own and `stop("SIGINT")` signals the whole group, as Ctrl-C in a terminal does.
 */
export function start(
  command: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; ready: RegExp; timeoutMs?: number; group?: boolean },
): Promise<Started> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? userEnv(),
      stdio: ["ignore", "pipe", "pipe"],
      detached: options.group === true,
    });
    const signal = (name: NodeJS.Signals) => {
      if (options.group && child.pid !== undefined) {
        try {
          process.kill(-child.pid, name);
        } catch {
          // the group has already gone
        }
      } else child.kill(name);
    };
    let stdout = "";
    let stderr = "";
    let settled = false;
    const closed = new Promise<Finished>((resolveClosed) => {
      child.on("close", (code, signal) => resolveClosed({ code, signal, stdout, stderr }));
    });
    const timer = setTimeout(() => {
      if (settled) return;
      settled = true;
      signal("SIGKILL");
      reject(new Error(`${command} ${args.join(" ")} did not print ${options.ready} in time\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, options.timeoutMs ?? 120_000);
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
      const match = stdout.match(options.ready);
      if (match && !settled) {
        settled = true;
        clearTimeout(timer);
        resolvePromise({
          match,
          output: () => stdout + stderr,
          stop: (name: NodeJS.Signals = "SIGTERM") => {
            signal(name);
            return closed;
          },
        });
      }
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    void closed.then((finished) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(
        new Error(`${command} ${args.join(" ")} exited (${finished.code}) before it was ready\n${finished.stdout}\n${finished.stderr}`),
      );
    });
  });
}
