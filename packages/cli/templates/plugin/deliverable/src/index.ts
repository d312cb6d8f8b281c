/**
 * __NAME__: the skillrig deliverable type "__TYPE__", written on @skillrig/deliverable-kit. Task files say
 * `"deliverable_type": "__TYPE__"`; each case runs `node <entrypoint> argv...` in the runner's sandbox, and the oracle
 * compares its stdout, exit code and files. For another runtime change `runtime` (`["python3"]`, `[]` for an
 * executable); for a type that is not a process per case, use the kit's `defineDeliverable`.
 */
import { defineProcessDeliverable } from "@skillrig/deliverable-kit";

export default () =>
  defineProcessDeliverable({
    name: "__NAME__",
    type: "__TYPE__",
    argv: true, // every case input has argv (the Input Contract's cli rule); false: stdin and files only (script)
    runtime: ["node"],
    description: "a Node.js command-line tool: node <entrypoint> argv...",
  });
