#!/usr/bin/env node
/**
 * The `skillrig` executable. `skillrig --version` alone is answered here, before the command line's parser and its
 * command table are loaded (what `main` prints for it, for a fraction of the start-up); everything else goes to main.
 */
import { readFileSync } from "node:fs";

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
  const { main } = await import("./main.js");
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
