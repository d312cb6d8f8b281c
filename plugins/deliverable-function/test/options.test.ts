/** The plugin's options: checked by the validator compiled from options.schema.json when the package was built. */
import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { schemaKey } from "@skillrig/core";
import deliverableFunction from "@skillrig/deliverable-function";
// @ts-expect-error: the build's output, not a source module
import * as precompiled from "../dist/options.schema.validate.js";

const schema = JSON.parse(readFileSync(new URL("../src/options.schema.json", import.meta.url), "utf8"));

describe("the function plugin's options", () => {
  test("a bad option is refused as invalid_config, naming every key at fault", () => {
    let error: unknown;
    try {
      deliverableFunction({ python: "", warm: "yes", extra: 1 } as never);
    } catch (caught) {
      error = caught;
    }
    expect(error).toMatchObject({ code: "invalid_config", field: "plugins" });
    const message = (error as Error).message;
    for (const said of ["/extra is not an allowed key", "/python must NOT have fewer than 1 characters", "/warm must be boolean"]) {
      expect(message).toContain(said);
    }
  });

  test("no options, or good ones, make a plugin", () => {
    expect(deliverableFunction().name).toBe("@skillrig/deliverable-function");
    expect(deliverableFunction({ python: "python3", warm: false, maxRestarts: 0 }).name).toBe("@skillrig/deliverable-function");
    expect(deliverableFunction({ shareHost: false }).name).toBe("@skillrig/deliverable-function");
    expect(() => deliverableFunction({ shareHost: "no" } as never)).toThrow("/shareHost must be boolean");
  });

  test("the shipped validator was built from the schema in the source (a stale build would be compiled again)", () => {
    expect(precompiled.schemaKey).toBe(schemaKey(schema));
  });
});
