/** Test helpers for config loading: a project folder written from a file map, and the error a load rejects with. */
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SkillrigError } from "../src/index.js";

/** A new folder (its real path) holding `files`, keyed by path relative to it. */
export function project(files: Record<string, string>): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "skillrig-config-")));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return dir;
}

/** The error `promise` rejects with; fails when it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<SkillrigError> {
  try {
    await promise;
  } catch (error) {
    return error as SkillrigError;
  }
  throw new Error("expected the config to be rejected");
}
