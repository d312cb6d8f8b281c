import { describe, expect, it } from "vitest";
import { isSkillrigError } from "@skillrig/core";
import { createOptionsValidator, engineEnv, engineOptionsSchema } from "@skillrig/engine-kit";

const validate = createOptionsValidator("@acme/engine-x", engineOptionsSchema({ mode: { enum: ["a", "b"] } }));

describe("engine options", () => {
  it("accepts the shared options and the engine's own", () => {
    const options = { binary: "/usr/bin/x", model: "m", timeout_ms: 1000, extra_args: ["--v"], mode: "a", mock_scenario: "./s.json" };
    expect(validate(options)).toEqual(options);
  });

  it("names every bad option and lists the known ones for an unknown key", () => {
    let error: unknown;
    try {
      validate({ timeout_ms: "soon", mode: "c", modle: "typo" });
    } catch (e) {
      error = e;
    }
    expect(isSkillrigError(error)).toBe(true);
    const message = (error as Error).message;
    expect(message).toContain("@acme/engine-x options:");
    expect(message).toContain("timeout_ms: must be integer");
    expect(message).toContain("mode: must be one of");
    expect(message).toMatch(/modle: unknown option; known options: binary, model, .*mode/);
    expect((error as { code: string }).code).toBe("invalid_config");
  });
});

describe("engineEnv", () => {
  it("passes only what a CLI needs, never the user's keys, and layers job, option and engine variables", () => {
    const env = engineEnv({
      home: "/run/h",
      tmpdir: "/run/t",
      source: { PATH: "/bin", LANG: "C.UTF-8", LC_ALL: "C", OPENAI_API_KEY: "sk-user", GEMINI_API_KEY: "user", HOME: "/root" },
      jobEnv: { PATH: "/venv/bin:/bin" },
      optionEnv: { FOO: "1" },
      engineEnv: { GEMINI_API_KEY: "job-key" },
    });
    expect(env).toMatchObject({
      PATH: "/venv/bin:/bin",
      LANG: "C.UTF-8",
      LC_ALL: "C",
      HOME: "/run/h",
      TMPDIR: "/run/t",
      FOO: "1",
      GEMINI_API_KEY: "job-key",
    });
    expect(env.OPENAI_API_KEY).toBeUndefined();
  });
});
