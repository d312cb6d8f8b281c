/**
 * xmlbuilder2, loaded on first use: it (and its DOM and YAML dependencies) is a good part of a command's start-up,
 * and only the junit reporters need it. A synchronous require keeps the reporters' API as it is.
 */
import { createRequire } from "node:module";
import type { create as createType } from "xmlbuilder2";

const require = createRequire(import.meta.url);
let loaded: typeof createType | undefined;

export const create: typeof createType = ((...args: Parameters<typeof createType>) => {
  loaded ??= (require("xmlbuilder2") as { create: typeof createType }).create;
  return (loaded as (...a: unknown[]) => unknown)(...args);
}) as typeof createType;
