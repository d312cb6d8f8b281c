/**
 * One fixture, four engines, the same verdicts: the real gemini, codex and claude CLIs and Gemini CLI over ACP ran
 * the same scripted agent against the mock model (fixtures/trajectory/scenario.json: activate the skill, `cat
 * reference.md`, write summary.txt with the CLI's file tool, `ls -1`, answer), recorded by
 * fixtures/trajectory/record-transcripts.mjs. Each transcript is normalised here by its engine plugin's own parser
 * (the ACP one by the adapter's turn state), and every trajectory kind must give the same verdict on all four,
 * with evidence naming the event that decided.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { EngineEvent } from "@skillrig/core";
import { createAcpTurnState } from "@skillrig/engine-acp";
import { createClaudeStreamParser } from "@skillrig/engine-claude";
import { createCodexStreamParser } from "@skillrig/engine-codex";
import { createGeminiStreamParser } from "@skillrig/engine-gemini";
import { replayCapture } from "@skillrig/engine-kit";
import { describe, expect, it } from "vitest";
import type { TrajectoryAssertion } from "../src/format.js";
import { parseEventLog } from "../src/grading/job-event-log.js";
import { trajectoryOf } from "../src/grading/tool-calls.js";
import { gradeTrajectory } from "../src/grading/trajectory.js";

const dir = join(import.meta.dirname, "fixtures", "trajectory", "transcripts");
const read = (name: string) => {
  try {
    return readFileSync(join(dir, name), "utf8");
  } catch {
    return "";
  }
};
const workspaceOf = (engine: string) => (JSON.parse(read(`${engine}.json`)) as { workspace: string }).workspace;

function replayCli(engine: string, parser: Parameters<typeof replayCapture>[0]): EngineEvent[] {
  return replayCapture(parser, { stdout: read(`${engine}.stdout`), stderr: read(`${engine}.stderr`), exitCode: 0, command: engine }).events;
}

/** The agent's ACP messages through the adapter's turn state, as its driver feeds them. */
function replayAcp(): EngineEvent[] {
  const state = createAcpTurnState(workspaceOf("acp"));
  const events: EngineEvent[] = [];
  for (const line of read("acp.stdout").split("\n")) {
    if (line.trim() === "") continue;
    const message = JSON.parse(line) as { method?: string; params?: { update?: never; toolCall?: never } };
    if (message.method === "session/update") events.push(...state.update(message.params!.update!));
    else if (message.method === "session/request_permission") events.push(...state.announce(message.params!.toolCall!));
  }
  return events;
}

const ENGINES: Record<string, () => EngineEvent[]> = {
  gemini: () => replayCli("gemini", createGeminiStreamParser(workspaceOf("gemini"))),
  codex: () => replayCli("codex", createCodexStreamParser()),
  claude: () => replayCli("claude", createClaudeStreamParser(workspaceOf("claude"))),
  acp: replayAcp,
};

/** Every kind, passing and failing, with the verdict the scripted run must get on every engine. */
const CASES: Array<[TrajectoryAssertion, boolean]> = [
  [{ kind: "skill_activated", skill: "trajectory-demo" }, true],
  [{ kind: "skill_activated", skill: "another-skill" }, false],
  [{ kind: "tool_used", tool_kind: "shell", args: "cat reference\\.md" }, true],
  [{ kind: "tool_used", tool_kind: "edit", args: "summary\\.txt" }, true],
  [{ kind: "tool_used", tool_kind: "read" }, false],
  [{ kind: "tool_used", tool_kind: "fetch" }, false],
  [{ kind: "tool_not_used", tool_kind: "shell", args: "\\brm\\b" }, true],
  [{ kind: "tool_not_used", tool_kind: "shell", args: "ls -1" }, false],
  [
    {
      kind: "tool_sequence",
      steps: [
        { tool_kind: "shell", args: "reference\\.md" },
        { tool_kind: "edit", args: "summary\\.txt" },
      ],
    },
    true,
  ],
  [{ kind: "tool_sequence", steps: [{ tool_kind: "edit" }, { tool_kind: "shell", args: "reference\\.md" }] }, false],
  [{ kind: "tool_sequence", steps: [{ tool_kind: "edit" }, { tool_kind: "shell", args: "ls" }] }, true],
  [{ kind: "step_count", max: 4 }, true],
  [{ kind: "step_count", max: 3 }, false],
  [{ kind: "step_count", min: 4, max: 12 }, true],
  [{ kind: "step_count", min: 5 }, false],
  [{ kind: "file_changed", path: "summary\\.txt" }, true],
  [{ kind: "file_changed", path: "summary\\.txt", change: "added" }, true],
  [{ kind: "file_changed", path: "summary\\.txt", change: "deleted" }, false],
  [{ kind: "file_changed", path: "reference\\.md" }, false],
];

describe("trajectory assertions on four engines' recorded runs of one scripted agent", () => {
  const replayed = Object.fromEntries(Object.entries(ENGINES).map(([engine, replay]) => [engine, replay()]));

  it("every kind gives the same verdict on gemini, codex, claude and acp", () => {
    const verdicts = Object.fromEntries(
      Object.entries(replayed).map(([engine, events]) => {
        const trajectory = trajectoryOf(events, workspaceOf(engine));
        return [engine, CASES.map(([assertion]) => gradeTrajectory(assertion, trajectory).passed)];
      }),
    );
    const expected = CASES.map(([, passed]) => passed);
    expect(verdicts).toEqual({ gemini: expected, codex: expected, claude: expected, acp: expected });
  });

  it("evidence names the deciding events, and they are the events the parser emitted", () => {
    for (const [engine, events] of Object.entries(replayed)) {
      const trajectory = trajectoryOf(events, workspaceOf(engine));
      const read = gradeTrajectory({ kind: "tool_used", tool_kind: "shell", args: "cat reference\\.md" }, trajectory);
      const n = Number(/event (\d+)/.exec(read.evidence)?.[1]);
      expect(events[n - 1], `${engine}: ${read.evidence}`).toMatchObject({ type: "tool_call" });
      expect(JSON.stringify(events[n - 1]), engine).toContain("cat reference.md");
      const added = gradeTrajectory({ kind: "file_changed", path: "summary\\.txt", change: "added" }, trajectory);
      const m = Number(/event (\d+)/.exec(added.evidence)?.[1]);
      expect(events[m - 1], `${engine}: ${added.evidence}`).toMatchObject({ type: "file_change", kind: "add" });
    }
  });

  it("the replay gives the trajectory the live job logged in its logs/events.jsonl (the parser is the job's)", () => {
    for (const [engine, events] of Object.entries(replayed)) {
      const live = parseEventLog(read(`${engine}.events.jsonl`), workspaceOf(engine));
      expect(live.unreadableLines, engine).toBe(0);
      const replay = trajectoryOf(events, workspaceOf(engine));
      // Event numbers differ (the live log has skillrig's status, usage and log lines too); what was done does not.
      const strip = <T extends { event: number }>(records: T[]) => records.map(({ event: _, ...rest }) => rest);
      expect(strip(replay.toolCalls), engine).toEqual(strip(live.trajectory.toolCalls));
      expect(strip(replay.activations), engine).toEqual(strip(live.trajectory.activations));
      expect(strip(replay.fileChanges), engine).toEqual(strip(live.trajectory.fileChanges));
    }
  });
});
