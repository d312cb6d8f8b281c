/**
 * Shared-fixtures tier: runs only when ../shared/fixtures (beside the repository) exists; vitest.config.ts leaves
 * `*.shared.test.ts` out and prints that it did otherwise. The default tier reads the copies in
 * test/fixtures/skill-runner; this tier checks them against their source and checks every skill package there.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { checkSkill } from "@skillrig/skills";
import { FIXTURE_SKILLS } from "./support/helpers.js";

const SHARED_SKILLS = resolve(import.meta.dirname, "../../../../shared/fixtures/skill-runner/skills");

function filesUnder(root: string, dir = root): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    return statSync(full).isDirectory() ? filesUnder(root, full) : [relative(root, full)];
  });
}

describe("Skill-Runner skill packages from ../shared/fixtures", () => {
  it("the repository's copies are byte-identical to their source", () => {
    const copies = filesUnder(FIXTURE_SKILLS);
    expect(copies.length).toBeGreaterThan(0);
    for (const file of copies) expect(readFileSync(join(FIXTURE_SKILLS, file)), file).toEqual(readFileSync(join(SHARED_SKILLS, file)));
  });

  it("every skill package there loads, including any not copied (their failures are run-time failures)", () => {
    const ids = readdirSync(SHARED_SKILLS);
    expect(ids.length).toBeGreaterThan(0);
    for (const id of ids) {
      const check = checkSkill(join(SHARED_SKILLS, id));
      expect(check.errors, id).toEqual([]);
      expect(check.manifest?.id, id).toBe(id);
    }
  });
});
