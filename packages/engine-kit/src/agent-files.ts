/**
 * Files in folders the agent could write (the workspace, the engine's HOME and scratch folder), read or written by
 * the runner. The agent may have left a symlink anywhere on such a path: to a runner-only file (the hidden tests,
 * the server's config) that the runner would read back as the agent's answer and hand to the model in a repair
 * turn, or to a host file the runner (root, in a container) would then overwrite. So: no component below the
 * trusted folder may be a symlink, a file read must be a regular file with one link, and a file written is created
 * without following a link. Called only after the agent's processes are gone (its pid namespace ended, its uid swept),
 * so nothing can swap a path between the check and the use.
 */
import {
  chmodSync,
  closeSync,
  constants,
  fstatSync,
  ftruncateSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeSync,
} from "node:fs";
import { isAbsolute, join, relative, sep } from "node:path";

/** The most the runner reads of one agent-written file (a final answer). */
export const AGENT_FILE_MAX_BYTES = 16 * 1024 * 1024;

function componentsBelow(root: string, path: string): string[] {
  const rel = relative(root, path);
  if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) throw new Error(`${path} is not inside ${root}`);
  return rel.split(sep);
}

/** Each folder from `root` down to `path`'s parent: refuses a symlink or non-folder; `create` makes missing ones. */
function walkFolders(root: string, path: string, create: boolean): void {
  const parts = componentsBelow(root, path);
  let at = root;
  for (const part of parts.slice(0, -1)) {
    at = join(at, part);
    let stat: ReturnType<typeof lstatSync> | undefined;
    try {
      stat = lstatSync(at);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT" || !create) throw error;
      mkdirSync(at);
      continue;
    }
    if (stat.isSymbolicLink()) throw new Error(`${at} is a symlink (left by the agent); not followed`);
    if (!stat.isDirectory()) throw new Error(`${at} is not a folder`);
  }
}

/**
 * The text of `path` (inside `root`, a folder the agent could write), or undefined when it is missing, is not a
 * regular file with one link, or lies behind a symlink. Never follows a link; reads at most AGENT_FILE_MAX_BYTES.
 */
export function readAgentFile(root: string, path: string): string | undefined {
  let fd: number;
  try {
    walkFolders(root, path, false);
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.nlink !== 1 || stat.size > AGENT_FILE_MAX_BYTES) return undefined;
    return readFileSync(fd, "utf8");
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes `text` to `path` (inside `root`, a folder the agent could write), making missing folders on the way; throws
 * when a folder on the way or the file itself is a symlink, or the file has other links.
 */
export function writeRunnerFile(root: string, path: string, text: string): void {
  walkFolders(root, path, true);
  const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK, 0o644);
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.nlink !== 1) throw new Error(`${path} is not a regular file of its own; not written`);
    // Truncated through the descriptor: the file just checked, not whatever the path names now.
    ftruncateSync(fd);
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
}

/**
 * Removes the file `path` (inside `root`) if it is there. Behind a symlinked folder there is nothing of the run's to
 * remove (and readAgentFile will not read it): it is left alone, not followed.
 */
export function removeAgentFile(root: string, path: string): void {
  try {
    walkFolders(root, path, false);
  } catch {
    return;
  }
  rmSync(path, { force: true });
}

/** Makes `folder` (inside `root`) and the folders on the way, refusing a symlink anywhere below `root`. */
export function makeRunnerFolder(root: string, folder: string): void {
  // The folders on the way to a child of `folder`: `folder` itself included.
  walkFolders(root, join(folder, "x"), true);
}

/**
 * Makes the job's input files (its `uploads/`, bound read-only into the jail) readable by the agent: as root the agent
 * is a per-run uid, and an upload copied from a 0600 file would be root's alone. Adds read (and, for folders, search)
 * permission for everyone; symlinks are skipped (chmod would follow them). Their folder stays out of other users'
 * reach where the run folder is (a 0700 parent), and the jail binds it read-only.
 */
export function openForAgent(folder: string): void {
  const visit = (path: string): void => {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) return;
    if (stat.isDirectory()) {
      if ((stat.mode & 0o555) !== 0o555) chmodSync(path, (stat.mode & 0o7777) | 0o555);
      for (const entry of readdirSync(path)) visit(join(path, entry));
    } else if (stat.isFile() && (stat.mode & 0o444) !== 0o444) chmodSync(path, (stat.mode & 0o7777) | 0o444);
  };
  try {
    visit(folder);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
}
