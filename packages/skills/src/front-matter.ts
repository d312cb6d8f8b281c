/** SKILL.md front matter: a YAML block between `---` lines at the very top of the file. */
import { parseDocument } from "yaml";
import type { Violation } from "@skillrig/core";

export interface FrontMatter {
  data: Record<string, unknown>;
  /** The text after the closing `---`. */
  body: string;
}

const FENCE = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/** Parses the front matter; returns the problems (with 1-based lines) instead of throwing. */
export function parseFrontMatter(text: string, file: string): { frontMatter?: FrontMatter; problems: Violation[] } {
  const match = FENCE.exec(text.replace(/^\uFEFF/, ""));
  if (!match) {
    return {
      problems: [
        { file, line: 1, message: "has no front matter: it must start with a `---` line, then `name:` and `description:`, then `---`" },
      ],
    };
  }
  const doc = parseDocument(match[1] ?? "");
  if (doc.errors.length > 0) {
    return {
      problems: doc.errors.map((e) => ({
        file,
        line: (e.linePos?.[0]?.line ?? 0) + 1,
        message: `front matter is not valid YAML: ${e.message.split("\n")[0]}`,
      })),
    };
  }
  const data = doc.toJS() as unknown;
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    return { problems: [{ file, line: 2, message: "front matter must be a YAML mapping with `name` and `description`" }] };
  }
  const problems: Violation[] = [];
  for (const key of ["name", "description"]) {
    const value = (data as Record<string, unknown>)[key];
    if (typeof value !== "string" || value.trim() === "") {
      problems.push({ file, pointer: `/${key}`, message: `front matter \`${key}\` is required and must be a non-empty string` });
    }
  }
  return { frontMatter: { data: data as Record<string, unknown>, body: text.slice(match[0].length) }, problems };
}
