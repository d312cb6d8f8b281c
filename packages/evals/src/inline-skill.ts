/**
 * The `inline_skill` configuration's prompt: the skill's SKILL.md and the files it references, pasted into the
 * case's prompt, with nothing installed (the control that tells a skill's content from its discovery, docs/evals.md).
 *
 * A file is referenced when SKILL.md names it by a relative path (the Agent Skills specification's way: a markdown
 * link `[guide](references/GUIDE.md)`, a code span `scripts/check.py`, or a bare path with a folder in it) and it is
 * a regular file inside the skill folder. One level: a file a reference names is not followed further. Left out, and
 * listed with why: a link whose target does not exist, a folder, a symbolic link, a path out of the skill folder,
 * anything under the skill's `evals/` (the agent never sees how it is graded), a file that is not UTF-8 text.
 *
 * Bounded: SKILL.md plus the referenced files at most `maxBytes` (default INLINE_SKILL_MAX_BYTES); past it the
 * iteration is refused before anything runs (exit 2), naming the files and their sizes.
 */
import { lstatSync, readFileSync, realpathSync } from "node:fs";
import { isAbsolute, join, normalize, relative, sep } from "node:path";
import { SkillrigError, type SkillManifest } from "@skillrig/core";
import { SKILL_EVALS_FOLDER } from "@skillrig/skills";
import type { InlineSkillRecord } from "./format.js";

/** The most bytes of skill text (SKILL.md and its referenced files) an inline_skill prompt carries: 256 KiB. */
export const INLINE_SKILL_MAX_BYTES = 256 * 1024;

export interface InlineSkill extends InlineSkillRecord {
  /** The block put before each case's prompt. */
  text: string;
}

/** A markdown link's target, a code span, or a bare relative path with at least one folder in it. */
const LINK = /\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g;
const CODE_SPAN = /`([^`\s]+)`/g;
const BARE_PATH = /(?:^|[\s(["'])((?:\.\/)?[A-Za-z0-9_.-]+(?:\/[A-Za-z0-9_.-]+)+)/g;

interface Candidate {
  path: string;
  /** A markdown link: a target that is not there is reported; a code span or a bare word may just not be a path. */
  link: boolean;
}

function candidates(skillMd: string): Candidate[] {
  const out: Candidate[] = [];
  const add = (raw: string, link: boolean) => {
    const path = raw.replace(/[#?].*$/, "").replace(/[.,;:]+$/, "");
    if (path === "" || /^[a-z][a-z0-9+.-]*:/i.test(path) || path.startsWith("//")) return;
    out.push({ path, link });
  };
  for (const m of skillMd.matchAll(LINK)) add(m[1]!, true);
  for (const m of skillMd.matchAll(CODE_SPAN)) add(m[1]!, false);
  for (const m of skillMd.matchAll(BARE_PATH)) add(m[1]!, false);
  return out;
}

function isUtf8Text(bytes: Buffer): boolean {
  if (bytes.includes(0)) return false;
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

const NO_SUCH_FILE = "no such file in the skill folder";

/** Why a referenced path is left out, or its bytes when it is included. */
function readReferenced(skillDir: string, realSkillDir: string, path: string): { bytes: Buffer } | { reason: string } | undefined {
  if (isAbsolute(path)) return { reason: "an absolute path; only files inside the skill folder are given" };
  const rel = normalize(path);
  if (rel === ".." || rel.startsWith(`..${sep}`)) return { reason: "outside the skill folder" };
  if (rel === "SKILL.md" || rel === ".") return undefined;
  if (rel === SKILL_EVALS_FOLDER || rel.startsWith(`${SKILL_EVALS_FOLDER}${sep}`))
    return { reason: "in the skill's evals/ folder, which the agent never sees" };
  const full = join(skillDir, rel);
  let stat: ReturnType<typeof lstatSync>;
  try {
    stat = lstatSync(full);
  } catch {
    return { reason: NO_SUCH_FILE };
  }
  if (stat.isSymbolicLink()) return { reason: "a symbolic link; only regular files are given" };
  if (stat.isDirectory()) return { reason: "a folder; only the files SKILL.md names are given" };
  if (!stat.isFile()) return { reason: "not a regular file" };
  // A folder on the way may be a link out of the skill.
  const real = realpathSync(full);
  if (relative(realSkillDir, real).startsWith("..")) return { reason: "outside the skill folder (through a linked folder)" };
  const bytes = readFileSync(full);
  if (!isUtf8Text(bytes)) return { reason: "not UTF-8 text" };
  return { bytes };
}

/** The fence around each file: longer than any run of backticks in the file, so a file cannot close it early. */
function fence(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  return "`".repeat(longest + 1);
}

function fileBlock(path: string, text: string): string {
  const f = fence(text);
  return [`### ${path}`, "", f, text.endsWith("\n") ? text.slice(0, -1) : text, f].join("\n");
}

/**
 * SKILL.md and the files it references, as one block of text, checked against the bound. Throws `invalid_skill`
 * (naming SKILL.md and the sizes) past `maxBytes`.
 */
export function inlineSkill(skill: Pick<SkillManifest, "name" | "dir" | "skillMdFile">, maxBytes = INLINE_SKILL_MAX_BYTES): InlineSkill {
  const skillMd = readFileSync(skill.skillMdFile);
  const realSkillDir = realpathSync(skill.dir);
  const files: Array<{ path: string; bytes: number }> = [{ path: "SKILL.md", bytes: skillMd.length }];
  const texts = new Map<string, string>([["SKILL.md", skillMd.toString("utf8")]]);
  const leftOut = new Map<string, string>();
  for (const c of candidates(skillMd.toString("utf8"))) {
    const key = normalize(c.path);
    if (texts.has(key) || leftOut.has(key)) continue;
    const read = readReferenced(skill.dir, realSkillDir, c.path);
    if (read === undefined) continue;
    if ("bytes" in read) {
      files.push({ path: key, bytes: read.bytes.length });
      texts.set(key, read.bytes.toString("utf8"));
    } else if (c.link || (read.reason !== NO_SUCH_FILE && !isAbsolute(c.path))) {
      // A code span or a bare word that names nothing here (`/usr/bin/python3`, `a/b`) is prose, not a reference.
      leftOut.set(key, read.reason);
    }
  }
  const total = files.reduce((a, f) => a + f.bytes, 0);
  if (total > maxBytes) {
    const sizes = [...files]
      .sort((a, b) => b.bytes - a.bytes)
      .map((f) => `${f.path} ${f.bytes} B`)
      .join(", ");
    throw new SkillrigError(
      "invalid_skill",
      `the inline_skill configuration pastes SKILL.md and the files it references into the prompt: ${total} bytes, over the bound of ${maxBytes} (${sizes})`,
      {
        file: skill.skillMdFile,
        field: "--configs",
        hint: 'leave inline_skill out of --configs for this skill, or reference fewer or smaller files from SKILL.md (docs/evals.md, "inline_skill")',
      },
    );
  }
  const blocks = files.map((f) => fileBlock(f.path, texts.get(f.path)!));
  const text = [
    `The skill "${skill.name}" is given here in full: its SKILL.md and the files it references. Nothing is installed; use these instructions for the task that follows.`,
    "",
    ...blocks.flatMap((b) => [b, ""]),
    "---",
    "",
  ].join("\n");
  return {
    text,
    files,
    bytes: total,
    max_bytes: maxBytes,
    ...(leftOut.size > 0 ? { left_out: [...leftOut].map(([path, reason]) => ({ path, reason })) } : {}),
  };
}

/** The prompt of an inline_skill run: the skill's block, then the case's prompt as is. */
export function inlinePrompt(inline: InlineSkill, casePrompt: string): string {
  return `${inline.text}Task:\n\n${casePrompt}`;
}
