// Writes config.schema.json at the package root: core's base config schema composed with the sections of the
// packages the CLI bundles (dist/config-sections.js, so run after tsc). Checked in, shipped, and exported as
// @skillrig/cli/config-schema.json; test/config-schema.test.ts fails when it is out of step with the fragments.
// Also writes dist/config.validate.js: that composition's validator, compiled now instead of at every start-up
// (loadConfig uses it when a config's composed schema is this one, i.e. its plugins add no sections).
import { writeFileSync } from "node:fs";
import { composeConfigSchema, precompiledSchemaModule } from "@skillrig/core";
import { builtinConfigSections, bundledConfigSchema, schemaText } from "../dist/config-sections.js";

writeFileSync(new URL("../config.schema.json", import.meta.url), schemaText(bundledConfigSchema()));
writeFileSync(new URL("../dist/config.validate.js", import.meta.url), precompiledSchemaModule(composeConfigSchema(builtinConfigSections)));
