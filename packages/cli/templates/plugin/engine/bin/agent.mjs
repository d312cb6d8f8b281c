#!/usr/bin/env node
// A stand-in for your agent CLI, so the plugin runs before you wire in the real one: it needs no model, and answers
// with the job's inputs, read from the "# Inputs" list of the prompt skillrig gives it as its last argument.
if (process.argv.includes("--version")) {
  console.log("agent 0.1.0");
  process.exit(0);
}
const prompt = process.argv.at(-1) ?? "";
const inputs = {};
let inInputs = false;
for (const line of prompt.split("\n")) {
  if (line.startsWith("# ")) inInputs = line.trim() === "# Inputs";
  const item = inInputs ? /^- ([^:]+): (.*)$/.exec(line) : null;
  if (item) inputs[item[1]] = item[2];
}
if (process.env.AGENT_GREETING) inputs.greeting = process.env.AGENT_GREETING;
console.log(JSON.stringify({ type: "message", text: JSON.stringify(inputs) }));
console.log(JSON.stringify({ type: "done" }));
