/**
 * Trajectory assertions: how the agent got there, decided on the job's normalised events (tool-calls.ts), the same
 * on every engine. Pure functions of the assertion and the trajectory; evidence names the events that decided by
 * their number in the job's logs/events.jsonl ("event 7").
 *
 * A **step** is one tool call the engine reported (a `tool_call` event, counted once per call id): a shell command,
 * a file read or write, a search, a skill activation made by a tool call. Text the model says, its thinking, and
 * skillrig's own events (status, usage, log lines, file_change, skill_activated) are not steps.
 *
 * Patterns (`args`, `path`) are RE2 (re2js), so an author's pattern runs in linear time on text the agent chose.
 */
import { RE2JS } from "re2js";
import type { ToolCallMatcher, TrajectoryAssertion } from "../format.js";
import { quote } from "./describe.js";
import type { Verdict } from "./deterministic.js";
import type { ToolCallRecord, Trajectory } from "./tool-calls.js";

/** The problem with an RE2 pattern, or undefined when it compiles. */
function re2Problem(pattern: string): string | undefined {
  try {
    RE2JS.compile(pattern);
    return undefined;
  } catch (error) {
    return `is not a pattern the linear-time engine accepts (RE2: no backreferences, no lookahead or lookbehind): ${(error as Error).message}`;
  }
}

/** Every pattern of a trajectory assertion, with its JSON pointer below the assertion. */
function trajectoryPatterns(assertion: TrajectoryAssertion): Array<{ pointer: string; pattern: string }> {
  switch (assertion.kind) {
    case "tool_used":
    case "tool_not_used":
      return assertion.args === undefined ? [] : [{ pointer: "/args", pattern: assertion.args }];
    case "tool_sequence":
      return assertion.steps.flatMap((s, i) => (s.args === undefined ? [] : [{ pointer: `/steps/${i}/args`, pattern: s.args }]));
    case "file_changed":
      return [{ pointer: "/path", pattern: assertion.path }];
    default:
      return [];
  }
}

/**
 * What the schema cannot say about a schema-valid trajectory assertion: a pattern RE2 refuses, a `min` above `max`.
 * Each problem's pointer is below the assertion's.
 */
export function trajectoryProblems(assertion: TrajectoryAssertion): Array<{ pointer: string; message: string }> {
  const problems = trajectoryPatterns(assertion).flatMap(({ pointer, pattern }) => {
    const problem = re2Problem(pattern);
    return problem ? [{ pointer, message: problem }] : [];
  });
  if (assertion.kind === "step_count" && assertion.min !== undefined && assertion.max !== undefined && assertion.min > assertion.max)
    problems.push({ pointer: "/min", message: `is ${assertion.min}, above max ${assertion.max}: no run could pass` });
  return problems;
}

/** What a matcher means, in words: `a shell call matching /rm /`. */
export function describeMatcher(m: ToolCallMatcher): string {
  const what = m.tool !== undefined ? `${m.tool_kind ? `${m.tool_kind} ` : ""}tool ${m.tool}` : `${m.tool_kind} tool`;
  return m.args === undefined ? `a ${what} call` : `a ${what} call matching /${m.args}/`;
}

export function trajectoryText(a: TrajectoryAssertion): string {
  switch (a.kind) {
    case "tool_used":
      return `the agent made ${describeMatcher(a)}`;
    case "tool_not_used":
      return `the agent never made ${describeMatcher(a)}`;
    case "tool_sequence":
      return `the agent made, in this order: ${a.steps.map(describeMatcher).join(", then ")}`;
    case "step_count":
      return `the agent took ${a.min !== undefined ? `at least ${a.min}` : ""}${a.min !== undefined && a.max !== undefined ? " and " : ""}${a.max !== undefined ? `at most ${a.max}` : ""} steps`;
    case "file_changed":
      return `a file matching /${a.path}/ was ${a.change ?? "changed"}`;
    case "skill_activated":
      return `the agent activated the skill ${a.skill}`;
  }
}

/** A call as evidence names it: `event 7 (run_shell_command, shell: 'cat reference.md')`. */
function nameCall(c: ToolCallRecord): string {
  return `event ${c.event} (${c.tool}, ${c.kind}${c.argsText !== "" ? `: ${quote(c.argsText)}` : ""})`;
}

function nameCalls(calls: ToolCallRecord[], limit = 5): string {
  if (calls.length === 0) return "none";
  const shown = calls.slice(0, limit).map(nameCall).join(", ");
  return calls.length > limit ? `${shown} and ${calls.length - limit} more` : shown;
}

type Compiled = { ok: true; test: (text: string) => boolean } | { ok: false; verdict: Verdict };

function compile(pattern: string, field: string, fullMatch: boolean): Compiled {
  let re: RE2JS;
  try {
    re = RE2JS.compile(pattern);
  } catch (error) {
    const why = `the assertion's ${field} /${pattern}/ is not an RE2 pattern: ${(error as Error).message}`;
    return { ok: false, verdict: { passed: false, evidence: why, error: why } };
  }
  return { ok: true, test: fullMatch ? (text) => re.matches(text) : (text) => re.matcher(text).find() };
}

/** A predicate on tool calls, or the verdict of a pattern that does not compile (evals.json's check stops those). */
function callMatcher(
  m: ToolCallMatcher,
  field = "args",
): { ok: true; test: (c: ToolCallRecord) => boolean } | { ok: false; verdict: Verdict } {
  const args = m.args === undefined ? undefined : compile(m.args, field, false);
  if (args && !args.ok) return args;
  return {
    ok: true,
    test: (c) =>
      (m.tool_kind === undefined || c.kind === m.tool_kind) &&
      (m.tool === undefined || c.tool === m.tool) &&
      (args === undefined || args.test(c.argsText)),
  };
}

export function gradeTrajectory(assertion: TrajectoryAssertion, trajectory: Trajectory): Verdict {
  const calls = trajectory.toolCalls;
  const steps = `${calls.length} step${calls.length === 1 ? "" : "s"}`;
  switch (assertion.kind) {
    case "tool_used":
    case "tool_not_used": {
      const matcher = callMatcher(assertion);
      if (!matcher.ok) return matcher.verdict;
      const found = calls.filter(matcher.test);
      const what = describeMatcher(assertion);
      if (assertion.kind === "tool_used")
        return found.length > 0
          ? { passed: true, evidence: `${what}: ${nameCalls(found)}` }
          : { passed: false, evidence: `no ${what.slice(2)} among the ${steps}: ${nameCalls(calls)}` };
      return found.length === 0
        ? { passed: true, evidence: `no ${what.slice(2)} among the ${steps}` }
        : { passed: false, evidence: `${what}: ${nameCalls(found)}` };
    }
    case "tool_sequence": {
      const matchers = [];
      for (const [i, step] of assertion.steps.entries()) {
        const m = callMatcher(step, `steps/${i}/args`);
        if (!m.ok) return m.verdict;
        matchers.push(m.test);
      }
      // The earliest match of each step after the one before: a subsequence exists if and only if this finds one.
      const matched: ToolCallRecord[] = [];
      let from = 0;
      for (const [i, test] of matchers.entries()) {
        const at = calls.findIndex((c, j) => j >= from && test(c));
        if (at < 0) {
          const after = matched.length > 0 ? ` after ${nameCall(matched[matched.length - 1]!)}` : "";
          const anywhere = calls.filter(test);
          return {
            passed: false,
            evidence: `step ${i + 1} of ${matchers.length} (${describeMatcher(assertion.steps[i]!)}) has no match${after}${
              matched.length > 0 ? ` (steps 1-${matched.length} matched ${matched.map((c) => `event ${c.event}`).join(", ")})` : ""
            }${anywhere.length > 0 ? `; it matches only earlier: ${nameCalls(anywhere, 3)}` : ""}`,
          };
        }
        matched.push(calls[at]!);
        from = at + 1;
      }
      return { passed: true, evidence: `in order: ${matched.map(nameCall).join(", ")}` };
    }
    case "step_count": {
      const { min, max } = assertion;
      const bounds = [min !== undefined ? `at least ${min}` : "", max !== undefined ? `at most ${max}` : ""].filter(Boolean).join(" and ");
      const passed = (min === undefined || calls.length >= min) && (max === undefined || calls.length <= max);
      const last = calls.length > 0 ? `; the last is ${nameCall(calls[calls.length - 1]!)}` : "";
      const over = max !== undefined && calls.length > max ? `; step ${max + 1} was ${nameCall(calls[max]!)}` : "";
      return { passed, evidence: `${steps} (${bounds})${passed ? last : over || last}` };
    }
    case "file_changed": {
      const path = compile(assertion.path, "path", true);
      if (!path.ok) return path.verdict;
      const changes = trajectory.fileChanges;
      const onPath = changes.filter((c) => path.test(c.path));
      const found = onPath.filter((c) => assertion.change === undefined || c.change === assertion.change);
      const name = (c: (typeof changes)[number]) => `event ${c.event} (${c.path} ${c.change})`;
      const list = (cs: typeof changes) =>
        cs.length === 0 ? "none" : cs.slice(0, 5).map(name).join(", ") + (cs.length > 5 ? ` and ${cs.length - 5} more` : "");
      if (found.length > 0) return { passed: true, evidence: list(found) };
      return {
        passed: false,
        evidence:
          onPath.length > 0
            ? `no file matching /${assertion.path}/ was ${assertion.change}; its changes: ${list(onPath)}`
            : `no file matching /${assertion.path}/ was changed; the file changes: ${list(changes)}`,
      };
    }
    case "skill_activated": {
      const found = trajectory.activations.filter((a) => a.skill === assertion.skill);
      if (found.length > 0)
        return { passed: true, evidence: `event ${found[0]!.event} (skill_activated ${found[0]!.skill} via ${found[0]!.via})` };
      const others = trajectory.activations.map((a) => `event ${a.event} (${a.skill})`);
      return {
        passed: false,
        evidence: `the agent did not activate ${assertion.skill}; skills activated: ${others.length > 0 ? others.join(", ") : "none"}`,
      };
    }
  }
}
