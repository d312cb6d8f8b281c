/**
 * lossless-json, loaded on first use through its single-file build (what `require` resolves to) instead of the ten
 * ES modules of its `import` build: one file to read and compile on a command's start-up path, not ten.
 */
import { createRequire } from "node:module";

type LosslessJson = typeof import("lossless-json");

const require = createRequire(import.meta.url);
let loaded: LosslessJson | undefined;

function losslessJson(): LosslessJson {
  loaded ??= require("lossless-json") as LosslessJson;
  return loaded;
}

export const parse: LosslessJson["parse"] = (...args) => losslessJson().parse(...args);
export const stringify: LosslessJson["stringify"] = (...args) => losslessJson().stringify(...args);
