/**
 * `@skillrig/skills/protocol` is bundled into the web form, so it must load where no Node builtin exists. A child
 * Node imports the built module with every builtin refused by a resolve hook (support/refuse-builtins.mjs); the
 * package's main entry, which reads files, fails the same way, so the hook is known to bite.
 */
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { execa } from "execa";
import { describe, expect, it } from "vitest";

const require = createRequire(import.meta.url);
const HOOKS = pathToFileURL(require.resolve("./support/refuse-builtins.mjs")).href;

/** Imports `specifier` (resolved from this package) in a child Node with builtins refused; its exports or the error. */
async function importWithoutBuiltins(specifier: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const script = [
    'import { register } from "node:module";',
    `register(${JSON.stringify(HOOKS)});`,
    `const loaded = await import(${JSON.stringify(specifier)});`,
    "console.log(JSON.stringify(Object.keys(loaded).sort()));",
  ].join("\n");
  const child = await execa(process.execPath, ["--input-type=module", "-e", script], {
    cwd: import.meta.dirname,
    reject: false,
    stripFinalNewline: false,
  });
  return { status: child.exitCode ?? null, stdout: child.stdout, stderr: child.stderr };
}

describe("@skillrig/skills/protocol in a place without Node builtins", () => {
  it("loads, with its functions, when every node: builtin is refused", async () => {
    const child = await importWithoutBuiltins("@skillrig/skills/protocol");
    expect(child.stderr).toBe("");
    expect(child.status).toBe(0);
    expect(JSON.parse(child.stdout)).toEqual(
      expect.arrayContaining(["inputFields", "fileInputNames", "inlineInputSchema", "artifactsOf", "supportsEngine", "checkUploadNames"]),
    );
  });

  it("the control: the package's main entry (which reads skill folders) is refused by the same hook", async () => {
    const child = await importWithoutBuiltins("@skillrig/skills");
    expect(child.status).not.toBe(0);
    expect(child.stderr).toMatch(/imports the Node builtin "(node:)?[a-z_/]+"/);
  });
});
