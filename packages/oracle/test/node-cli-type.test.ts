/**
 * A deliverable type written as a team outside this repo would: a Node.js CLI in five lines of
 * @skillrig/deliverable-kit, graded by the real oracle in the real sandbox.
 */
import { describe, expect, it } from "vitest";
import { Runner } from "@skillrig/core";
import { defineProcessDeliverable } from "@skillrig/deliverable-kit";
import { makeRunner, runTaskWith } from "./helpers.js";

const nodeCli = () =>
  defineProcessDeliverable({
    name: "@acme/skillrig-deliverable-node-cli",
    type: "node-cli",
    argv: true,
    runtime: ["node"],
    description: "a Node.js command-line tool: node <entrypoint> argv...",
  });

const TOOL = `
const fs = require("node:fs");
const [command, ...rest] = process.argv.slice(2);
if (command === "upper") process.stdout.write(rest.join(" ").toUpperCase() + "\\n");
else if (command === "count") {
  const text = fs.readFileSync(rest[0], "utf8");
  fs.writeFileSync("count.txt", String(text.split(/\\s+/).filter(Boolean).length));
} else if (command === "tamper") {
  // Its own code is read-only in the sandbox: the write fails and the tool says how.
  try { fs.writeFileSync(__filename, "hacked"); console.log("wrote"); } catch (e) { console.log(e.code); }
} else { process.stderr.write("unknown command " + command + "\\n"); process.exit(3); }
`;

function nodeTask(tests: unknown[]) {
  return { contract_version: "1.0", task_id: "node-tool", deliverable_type: "node-cli", entrypoint: "tool.js", tests };
}

describe("a deliverable type made with defineProcessDeliverable", () => {
  it("grades a Node CLI through the oracle: stdout, files, exit codes, Input Contract checks, read-only code", async () => {
    const { report, byName } = await runTaskWith(
      nodeTask([
        { name: "upper", input: { argv: ["upper", "hello", "world"] }, expected: { stdout: "HELLO WORLD" } },
        {
          name: "count",
          input: { argv: ["count", "in.txt"], files: { "in.txt": "a b  c\nd" } },
          expected: { files: { "count.txt": "4" } },
        },
        { name: "wrong answer", input: { argv: ["upper", "x"] }, expected: { stdout: "y" } },
        { name: "exit code", input: { argv: ["nope"] }, expected: { exit_code: 3 } },
        { name: "no argv", input: { stdin: "x" }, expected: {} },
        { name: "tamper", input: { argv: ["tamper"] }, expected: { stdout: "EROFS" } },
      ]),
      { "tool.js": TOOL },
      { runner: makeRunner([nodeCli()]) },
    );
    expect(byName.upper?.status).toBe("passed");
    expect(byName.count?.status).toBe("passed");
    expect(byName["wrong answer"]?.status).toBe("failed");
    expect(byName["exit code"]?.status).toBe("passed");
    expect(byName["no argv"]).toMatchObject({
      status: "invalid_test_format",
      message: "invalid_test_format: node-cli input must include argv",
    });
    expect(byName.tamper?.status).toBe("passed");
    expect(byName.upper?.details?.command).toEqual([
      expect.stringMatching(/node$/),
      expect.stringMatching(/tool\.js$/),
      "upper",
      "hello",
      "world",
    ]);
    expect(report.summary).toMatchObject({ total: 6, passed: 4, failed: 1, invalid: 1 });
  });

  it("claims its type: a second plugin for node-cli is refused naming both", () => {
    const other = defineProcessDeliverable({ name: "@other/node", type: "node-cli", argv: true, runtime: ["node"], description: "x" });
    expect(() => new Runner().use(nodeCli()).use(other)).toThrow(
      /deliverable type "node-cli" is claimed by both plugin "@acme\/skillrig-deliverable-node-cli" and plugin "@other\/node"/,
    );
  });
});
