/**
 * A skill's Python environment must reach the agent's commands on every engine. Codex runs each tool command as
 * `bash -lc`, and a login shell's /etc/profile resets PATH; engine-kit's per-job HOME holds a profile that puts the
 * job's PATH back. Tested with a real login bash, inside the real agent jail as engines run it, and as a control
 * without the profile (the bug itself).
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { confineAgent } from "@skillrig/sandbox";
import { engineEnv, writeLoginProfile } from "@skillrig/engine-kit";

function setup() {
  const root = mkdtempSync(join(tmpdir(), "skillrig-profile-"));
  const venvBin = join(root, "python-env/bin");
  mkdirSync(venvBin, { recursive: true });
  // Stands in for the environment's python with the skill's dependencies.
  writeFileSync(join(venvBin, "skill-tool"), "#!/bin/sh\necho skill-tool-from-the-job-environment\n");
  chmodSync(join(venvBin, "skill-tool"), 0o755);
  const home = join(root, "engine/home");
  const workspace = join(root, "workspace");
  mkdirSync(home, { recursive: true });
  mkdirSync(workspace, { recursive: true });
  const env = engineEnv({
    home,
    tmpdir: join(root, "engine/tmp"),
    jobEnv: { PATH: `${venvBin}:/usr/bin:/bin`, VIRTUAL_ENV: join(root, "python-env") },
  });
  return { root, venvBin, home, workspace, env };
}

const LOGIN = ["bash", "-lc", "skill-tool; echo PATH=$PATH"];

describe("the job's PATH in the agent's login shells", () => {
  it("control: a login shell without the profile loses the job's PATH (the bug codex users hit)", () => {
    const { env, workspace } = setup();
    const r = spawnSync(LOGIN[0]!, LOGIN.slice(1), { env, cwd: workspace, encoding: "utf8" });
    expect(r.stdout).not.toContain("skill-tool-from-the-job-environment");
  });

  it("with engine-kit's profile in the engine's HOME, `bash -lc` finds the skill's environment, inside the jail too", async () => {
    const { env, home, workspace, root, venvBin } = setup();
    writeLoginProfile(home, env);
    const plain = spawnSync(LOGIN[0]!, LOGIN.slice(1), { env, cwd: workspace, encoding: "utf8" });
    expect(plain.stdout).toContain("skill-tool-from-the-job-environment");
    expect(plain.stdout).toContain(`PATH=${venvBin}:`);

    const confined = await confineAgent({
      command: LOGIN,
      workspace,
      writable: [join(root, "engine")],
      readOnly: [join(root, "python-env")],
      env,
    });
    try {
      expect(confined.isolation).toBe("namespaces");
      expect(confined.network).toBe("none");
      const jailed = spawnSync(confined.file, confined.args, { env: confined.env, cwd: workspace, encoding: "utf8" });
      expect(jailed.stdout, jailed.stderr).toContain("skill-tool-from-the-job-environment");
    } finally {
      await confined.close();
    }
  });
});
