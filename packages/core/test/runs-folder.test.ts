import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { runsFolderOf } from "../src/index.js";

const project = (runs_dir?: string) => ({ config: runs_dir === undefined ? {} : { runs_dir }, configDir: "/work/project" });

describe("runsFolderOf: where runs go", () => {
  it("is .skillrig/runs beside the config file when nothing else says", () => {
    expect(runsFolderOf(project(), { env: {} })).toBe(join("/work/project", ".skillrig", "runs"));
  });

  it("takes runs_dir of the config, relative to the config file", () => {
    expect(runsFolderOf(project("out/runs"), { env: {} })).toBe(join("/work/project", "out", "runs"));
    expect(runsFolderOf(project("/var/runs"), { env: {} })).toBe("/var/runs");
  });

  it("takes the caller's own place (the jobs server's data folder) over the config's", () => {
    expect(runsFolderOf(project("out/runs"), { env: {}, fallback: "/srv/data/runs" })).toBe("/srv/data/runs");
  });

  it("honours $SKILLRIG_RUNS_DIR over everything, resolved against the working directory", () => {
    const env = { SKILLRIG_RUNS_DIR: "ci-runs" };
    expect(runsFolderOf(project("out/runs"), { env, fallback: "/srv/data/runs" })).toBe(resolve("ci-runs"));
    // An empty value is unset, not the working directory.
    expect(runsFolderOf(project(), { env: { SKILLRIG_RUNS_DIR: "" } })).toBe(join("/work/project", ".skillrig", "runs"));
  });

  it("reads process.env by default", () => {
    const before = process.env.SKILLRIG_RUNS_DIR;
    process.env.SKILLRIG_RUNS_DIR = "/tmp/from-env";
    try {
      expect(runsFolderOf(project())).toBe("/tmp/from-env");
    } finally {
      if (before === undefined) Reflect.deleteProperty(process.env, "SKILLRIG_RUNS_DIR");
      else process.env.SKILLRIG_RUNS_DIR = before;
    }
  });
});
