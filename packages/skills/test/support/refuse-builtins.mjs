/**
 * Module resolve hooks (node:module `register`) that refuse every Node builtin, as a browser has none: a module
 * that imports `node:fs` (or `fs`), itself or through any import, fails to load with an error naming it.
 */
import { builtinModules } from "node:module";

const builtins = new Set(builtinModules);

export async function resolve(specifier, context, nextResolve) {
  if (specifier.startsWith("node:") || builtins.has(specifier)) {
    throw new Error(`imports the Node builtin "${specifier}" (from ${context.parentURL ?? "the entry"})`);
  }
  return nextResolve(specifier, context);
}
