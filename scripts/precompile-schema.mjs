// Writes a precompiled validator (ES module) for a JSON Schema, with @skillrig/core's precompiledSchemaModule,
// so the package that ships it validates without compiling the schema (or loading ajv) when a command starts.
// Run from the package's folder after core is built: core is resolved from that package, as its code will be.
// usage: node precompile-schema.mjs <schema.json> <out.js>
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [schemaFile, outFile] = process.argv.slice(2);
if (!schemaFile || !outFile) {
  console.error("usage: precompile-schema.mjs <schema.json> <out.js>");
  process.exit(2);
}
const corePackage = createRequire(resolve("package.json")).resolve("@skillrig/core/package.json");
const { precompiledSchemaModule } = await import(pathToFileURL(join(dirname(corePackage), "dist/index.js")).href);
mkdirSync(dirname(resolve(outFile)), { recursive: true });
writeFileSync(outFile, precompiledSchemaModule(JSON.parse(readFileSync(schemaFile, "utf8"))));
