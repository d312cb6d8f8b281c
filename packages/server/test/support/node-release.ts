/**
 * Another Node than the one running the tests, from the npm registry (the `node` package installs the official
 * binary for this platform): `npx -y -p node@22 node`, cached by npx in npm's cache after the first run. The
 * machines this project is tested on start with Node 20; the server's node:sqlite driver needs 22.13+.
 */
import { execFile } from "node:child_process";
import { tmpdir } from "node:os";
import { promisify } from "node:util";

const found = new Map<string, string>();

/**
 * The path of a `node` binary of release line `major` (e.g. "22"); rejects, saying why, when npx cannot get one.
 * Asynchronous: a first download takes a while, and a test worker must keep answering its runner meanwhile.
 */
export async function nodeBinary(major: string): Promise<string> {
  const known = found.get(major);
  if (known) return known;
  // From a neutral folder, so no project's node_modules/.bin or .npmrc is in the way.
  const got = await promisify(execFile)("npx", ["-y", "-p", `node@${major}`, "node", "-p", "process.execPath + ' ' + process.version"], {
    cwd: tmpdir(),
    encoding: "utf8",
    timeout: 600_000,
    env: { ...process.env, npm_config_yes: "true", npm_config_update_notifier: "false" },
  }).catch((error: { code?: unknown; stderr?: string; message: string }) => {
    throw new Error(
      `could not get Node ${major} from the npm registry with npx -p node@${major} (exit ${error.code}): ${error.stderr || error.message}`,
    );
  });
  const [path, version] = got.stdout.trim().split(" ");
  if (!path || !version?.startsWith(`v${major}.`)) {
    throw new Error(`npx -p node@${major} gave no Node ${major}: ${got.stdout} ${got.stderr}`);
  }
  found.set(major, path);
  return path;
}
