/**
 * `@skillrig/engine-kit/testing` needs vitest and @skillrig/skills (optional peer dependencies); the main entry must
 * load without either, or every engine plugin in production would pull in a test runner. A fresh node process
 * whose module resolution refuses both imports each entry.
 */
import { execa } from "execa";
import { describe, expect, it } from "vitest";

const PACKAGE_DIR = new URL("..", import.meta.url).pathname;
// A resolve hook (node's module.register) that fails any import of vitest or @skillrig/skills, naming it.
const REFUSE = `export async function resolve(specifier, context, next) {
  if (/^(vitest|@vitest\\/|@skillrig\\/skills)(\\/|$)/.test(specifier)) throw new Error("refused import of " + specifier);
  return next(specifier, context);
}`;
const REGISTER = `import { register } from "node:module"; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(REFUSE)}`)});`;

function importIn(entry: string) {
  return execa(
    "node",
    ["--import", `data:text/javascript,${encodeURIComponent(REGISTER)}`, "--input-type=module", "-e", `await import("${entry}");`],
    {
      cwd: PACKAGE_DIR,
      reject: false,
    },
  );
}

describe("@skillrig/engine-kit's entries", () => {
  it("the main entry loads without vitest or @skillrig/skills", async () => {
    const r = await importIn("@skillrig/engine-kit");
    expect(r.stderr).toBe("");
    expect(r.exitCode).toBe(0);
  });

  it("the testing entry does import them (so the check above can fail)", async () => {
    const r = await importIn("@skillrig/engine-kit/testing");
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr).toMatch(/refused import of (vitest|@skillrig\/skills)/);
  });
});
