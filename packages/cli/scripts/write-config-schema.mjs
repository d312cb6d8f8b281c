// Writes config.schema.json at the package root: core's base config schema composed with the sections of the
// packages the CLI bundles (dist/config-sections.js, so run after tsc). Checked in, shipped, and exported as
// @skillrig/cli/config-schema.json; test/config-schema.test.ts fails when it is out of step with the fragments.
import { writeFileSync } from "node:fs";
import { bundledConfigSchema, schemaText } from "../dist/config-sections.js";

writeFileSync(new URL("../config.schema.json", import.meta.url), schemaText(bundledConfigSchema()));
