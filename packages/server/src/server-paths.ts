/**
 * What the API shows names none of the server's folders. A job's stored result, events and error keep the absolute
 * paths the run wrote (the server itself reads artifacts through them); everything sent to a client goes through
 * `withoutServerPaths` first: a path inside the job's run folder becomes relative to it (`.` for the folder itself),
 * and any other path under the data folder or the server's temp folder is replaced by a placeholder that says
 * which folder it was (`<data_dir>`, `<tmp>`), so a client learns neither the layout of the server's disk nor
 * another job's folder.
 */
import { realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, resolve, sep } from "node:path";

/** A folder and the variants of its name a path may use (as given, and after symlinks). */
function spellings(folder: string): string[] {
  const given = resolve(folder);
  let real = given;
  try {
    real = realpathSync(given);
  } catch {
    // Not there (yet): only the given spelling can appear.
  }
  return [...new Set([given, real])];
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

const TMP_SPELLINGS = spellings(tmpdir());

export interface ServerFolders {
  /** The server's data folder (`server.data_dir`). */
  dataDir: string;
  /** The job's run folder (`<data_dir>/runs/<job id>`), when the value is about one job. */
  runDir?: string;
}

/** A job's folders: every run folder is `<data_dir>/runs/<job id>`, so the data folder is known from it. */
export function jobFolders(runDir: string): ServerFolders {
  return { runDir, dataDir: dirname(dirname(resolve(runDir))) };
}

/**
 * A function that rewrites one string: a path in the run folder -> relative to it (`.` for the folder itself), one
 * elsewhere in the data folder -> `<data_dir>/...`, a temp folder skillrig made (`skillrig-*`, the sandbox's
 * snapshots and scratch folders) -> `<tmp>/...`.
 */
export function pathRewriter({ dataDir, runDir }: ServerFolders): (text: string) => string {
  const s = escapeRegExp(sep);
  const end = `(?=$|[${s}\\s"'\`).:,;\\]}])`;
  // Longest first: the run folder is inside the data folder, which may itself be in the temp folder (tests).
  const rules = [
    ...(runDir === undefined ? [] : spellings(runDir)).map((folder) => ({
      // The folder followed by a separator and more path (made relative), or standing alone (made ".").
      source: `${escapeRegExp(folder)}(?:${s}(?=[^${s}\\s])|${end})`,
      length: folder.length,
      replace: (match: string) => (match.endsWith(sep) ? "" : "."),
    })),
    ...spellings(dataDir).map((folder) => ({
      source: `${escapeRegExp(folder)}${end}`,
      length: folder.length,
      replace: () => "<data_dir>",
    })),
    ...TMP_SPELLINGS.map((folder) => ({
      source: `${escapeRegExp(folder)}(?=${s}skillrig-)`,
      length: folder.length,
      replace: () => "<tmp>",
    })),
  ].sort((a, b) => b.length - a.length);
  const pattern = new RegExp(rules.map((r) => `(${r.source})`).join("|"), "g");
  return (text) =>
    text.includes(sep)
      ? text.replace(pattern, (match: string, ...groups: unknown[]) => {
          const index = groups.findIndex((g, i) => i < rules.length && g !== undefined);
          return rules[index]!.replace(match);
        })
      : text;
}

/**
 * `value` (any JSON value) with every string rewritten by `pathRewriter`; keys are left alone, and so are the
 * values of `input` and `expected` (a case's own values, as the client sent them: they are data, not the server's).
 */
export function withoutServerPaths<T>(value: T, folders: ServerFolders): T {
  return serverPathCleaner(folders)(value);
}

/** `withoutServerPaths` for many values about the same folders (a job's event stream): the rules are built once. */
export function serverPathCleaner(folders: ServerFolders): <T>(value: T) => T {
  const rewrite = pathRewriter(folders);
  const walk = (item: unknown): unknown => {
    if (typeof item === "string") return rewrite(item);
    if (Array.isArray(item)) return item.map(walk);
    if (item !== null && typeof item === "object") {
      return Object.fromEntries(
        Object.entries(item as Record<string, unknown>).map(([key, inner]) => [key, CLIENT_VALUES.has(key) ? inner : walk(inner)]),
      );
    }
    return item;
  };
  return <T>(value: T) => walk(value) as T;
}

const CLIENT_VALUES = new Set(["input", "expected"]);
