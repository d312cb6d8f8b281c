import { Runner } from "@skillrig/core";
import { runJob, skillProtocolPlugin } from "@skillrig/skills";
import { startMockModel } from "@skillrig/mock-model";
import G from "@skillrig/engine-gemini";
import { mkdtempSync } from "node:fs";
const dir = mkdtempSync("/tmp/probe/g-");
const mock = await startMockModel({ scenario: { turns: [{ error: { status: 500 } }] } });
process.env.K = "k";
const runner = new Runner({
  cwd: dir,
  configDir: dir,
  config: { skills: { roots: ["/work/main/plugins/engine-gemini/test/fixtures/skills"] } },
});
runner.use(skillProtocolPlugin()).use(new G({ base_url: mock.url, api_key_env: "K", model: "gemini-2.5-flash" }));
const t = Date.now();
const r = await runJob(
  runner,
  { skill_id: "write-greeting", engine: "gemini", input: { name: "Ada" } },
  { onEvent: (e) => console.log(Date.now() - t, JSON.stringify(e).slice(0, 150)) },
);
console.log(Date.now() - t, r.status, r.error?.message, r.warnings);
console.log(mock.requests.map((q) => [q.api, q.url, q.turn, q.answer]));
await mock.close();
