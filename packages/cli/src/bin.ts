#!/usr/bin/env node
/**
 * The `skillrig` executable. `skillrig --version` alone is answered here, before the command line's parser and its
 * command table are loaded (what `main` prints for it, for a fraction of the start-up); everything else goes to main,
 * as built into dist/bundle/ (scripts/bundle.mjs: a command's modules in a few files instead of some hundred).
 */
import { readFileSync } from "node:fs";
import module from "node:module";

// A reader that went away (`skillrig ... | head`) ends the output, not the command: the work, its clean-up and its
// exit code stay as they are, and no stack trace is printed for a pipe closed early.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
  });
}

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-v")) {
  const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };
  process.stdout.write(`${manifest.version}\n`);
} else {
  // Node 22.1+ keeps the compiled code of every module loaded from here on in its on-disk cache (the default
  // folder under the OS's temp dir; NODE_DISABLE_COMPILE_CACHE=1 turns it off). Node 20 has no such cache.
  const { enableCompileCache } = module as { enableCompileCache?: () => unknown };
  enableCompileCache?.();
  // A variable specifier: the bundle is written after tsc, so it has no declarations of its own (it is main.js).
  const bundledMain = "./bundle/main.js";
  const { main } = (await import(bundledMain)) as typeof import("./main.js");
  main(argv).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`error[unhandled]: ${(error as Error)?.message ?? String(error)}\n`);
      process.exitCode = 2;
    },
  );
}
