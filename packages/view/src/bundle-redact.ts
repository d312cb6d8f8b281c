/**
 * A bundle is meant to be sent to others, so it carries no absolute path of the machine that wrote it: tracebacks,
 * rendered prompts, job folders, a skill's path and an engine's settings name files under the project, the runs
 * folder, a home or temporary folder. Before anything goes into data.js, each of its strings (and each text file)
 * is passed through the redactor:
 *
 * - a path under the project becomes relative to it (`/home/ann/proj/tasks/x.py` -> `tasks/x.py`; the project
 *   itself `.`), the runs folder relative to the project (`.skillrig/runs/...`);
 * - a path under a home folder, the temporary folder, the working folder or skillrig's own install (and the usual
 *   per-user roots: `/home/*`, `/Users/*`, `/root`, `/tmp`, `/var/folders`, `/private`) is marked
 *   `<redacted>/<its file name>`: where it lived says who and where the author is, its name is what a reader needs.
 *
 * System paths the same on every machine (`/usr/lib/python3.12/json/decoder.py`) and a sandbox's own paths
 * (`/workspace/solution.py`) are kept: they say nothing of the author.
 */
import { realpathSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { basename, dirname, isAbsolute, relative, resolve, sep } from "node:path";

export const REDACTED = "<redacted>";

export interface RedactionRoots {
  /** Paths under it become relative to it. */
  projectDir: string;
  runsDir: string;
  /** More folders whose paths are marked (default: home, temporary and working folders, skillrig's install). */
  privateRoots?: string[];
}

/** Characters that end a path inside text (quotes, brackets, separators of a traceback or a JSON string). */
const PATH_TAIL = `((?:/[^\\s"'\`<>:;,()\\[\\]{}|\\\\]*)?)`;
/** Where a path starts: not inside a word, a relative path or a URL. */
const PATH_START = String.raw`(?<![\w.~-])`;
/** Per-user roots on any machine: a home folder (with its user's name), root's, the temporary folders. */
const GENERIC_PRIVATE = String.raw`${PATH_START}(?:/home/[^/\s"'<>]+|/Users/[^/\s"'<>]+|/root|/tmp|/var/folders|/private)(?![\w.-])`;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** A folder and its real path (a temporary folder is often reached through a link, e.g. macOS's /var -> /private/var). */
function spellings(dir: string): string[] {
  const out = new Set([resolve(dir)]);
  try {
    out.add(realpathSync(dir));
  } catch {
    // not there (any more): its name as given still counts
  }
  return [...out].filter((d) => d !== sep && d.length > 1);
}

/** Where skillrig itself is installed: the folder holding node_modules, or the workspace checkout (packages/view/dist's root). */
function installRoot(): string {
  const here = dirname(new URL(import.meta.url).pathname);
  const cut = here.indexOf(`${sep}node_modules${sep}`);
  return cut > 0 ? here.slice(0, cut) : resolve(here, "..", "..", "..");
}

/** A private path marked: only the file name of what follows the root is kept (not the root, which may name a user). */
function markPath(tail: string | undefined): string {
  const name = tail ? basename(tail) : "";
  return name && !tail!.endsWith("/") ? `${REDACTED}/${name}` : REDACTED;
}

type Rule = [RegExp, (match: string, tail: string | undefined) => string];

function relativeRule(root: string, shown: string): Rule {
  return [
    new RegExp(`${PATH_START}${escapeRegExp(root)}(?![\\w.-])(/)?`, "g"),
    (_m, slash) => (slash ? (shown === "." ? "" : `${shown}/`) : shown),
  ];
}

function privateRule(root: string): Rule {
  return [new RegExp(`${PATH_START}${escapeRegExp(root)}(?![\\w.-])${PATH_TAIL}`, "g"), (_m, tail) => markPath(tail)];
}

/** The redactor of one bundle: a function from any text to the text with the machine's paths made relative or marked. */
export function pathRedactor(roots: RedactionRoots): (text: string) => string {
  const project = spellings(roots.projectDir);
  const runs = spellings(roots.runsDir);
  const runsShown = (dir: string) => {
    const rel = relative(resolve(roots.projectDir), dir);
    return rel && !rel.startsWith("..") && !isAbsolute(rel) ? rel : REDACTED;
  };
  const privates = (roots.privateRoots ?? [homedir(), tmpdir(), process.cwd(), installRoot()]).flatMap(spellings);
  // Longest root first: the runs folder inside the project inside the temporary folder is each matched by its own rule.
  const rules: Array<[number, Rule]> = [
    ...runs.map((d): [number, Rule] => [d.length, relativeRule(d, runsShown(d))]),
    ...project.map((d): [number, Rule] => [d.length, relativeRule(d, ".")]),
    ...privates.map((d): [number, Rule] => [d.length, privateRule(d)]),
  ];
  const ordered = rules.sort((a, b) => b[0] - a[0]).map(([, r]) => r);
  const generic = new RegExp(`${GENERIC_PRIVATE}${PATH_TAIL}`, "g");
  return (text) => {
    let out = text;
    for (const [pattern, replace] of ordered) out = out.replace(pattern, (m, tail) => replace(m, tail));
    return out.replace(generic, (_m, tail: string) => markPath(tail));
  };
}

/** Every string of a JSON value (keys too) through the redactor; numbers, booleans and null as they are. */
export function redactJson<T>(value: T, redact: (text: string) => string): T {
  if (typeof value === "string") return redact(value) as T;
  if (Array.isArray(value)) return value.map((v) => redactJson(v, redact)) as T;
  if (typeof value === "object" && value !== null)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [redact(k), redactJson(v, redact)])) as T;
  return value;
}
