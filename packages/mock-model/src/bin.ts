#!/usr/bin/env node
/**
 * skillrig-mock-model --scenario scenario.json [--port 0] [--host 127.0.0.1]
 * Prints the base URL on the first line of stdout (then one JSON line per request with --log), and runs until
 * SIGINT/SIGTERM.
 */
import { parseArgs } from "node:util";
import { isSkillrigError } from "@skillrig/core";
import { loadScenario } from "./scenario.js";
import { startMockModel } from "./server.js";

const USAGE = "usage: skillrig-mock-model --scenario <file.json> [--port <n>] [--host <addr>] [--attempt <n>] [--log]";

async function main(): Promise<number> {
  let values: { scenario?: string; port?: string; host?: string; attempt?: string; log?: boolean; help?: boolean };
  try {
    ({ values } = parseArgs({
      options: {
        scenario: { type: "string", short: "s" },
        port: { type: "string", short: "p" },
        attempt: { type: "string" },
        host: { type: "string" },
        log: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (!values.scenario) {
    process.stderr.write(`--scenario is required\n${USAGE}\n`);
    return 2;
  }
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write(`--port must be an integer from 0 to 65535, got "${values.port}"\n`);
    return 2;
  }
  const attempt = values.attempt === undefined ? 1 : Number(values.attempt);
  if (!Number.isInteger(attempt) || attempt < 1) {
    process.stderr.write(`--attempt must be a whole number from 1, got "${values.attempt}"\n`);
    return 2;
  }
  const scenario = loadScenario(values.scenario);
  const server = await startMockModel({ scenario, port, host: values.host, attempt });
  process.stdout.write(`${server.url}\n`);
  if (values.log) {
    let shown = 0;
    setInterval(() => {
      while (shown < server.requests.length) {
        const { body: _body, ...summary } = server.requests[shown++]!;
        process.stdout.write(`${JSON.stringify(summary)}\n`);
      }
    }, 100).unref();
  }
  await new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  await server.close();
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(`${isSkillrigError(error) ? error.message : String(error)}\n`);
    process.exit(2);
  },
);
