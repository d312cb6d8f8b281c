/**
 * The confusion table of trigger evals among neighbours (`--distractors`): whose queries (the skill under test's
 * should_trigger ones, each neighbour's) against which skill the agent activated first in each run, per engine and
 * across engines; and its two headline counts with n and a Wilson 95% interval: how often the skill under test was
 * picked on its own queries, how often it fired on a neighbour's query. Browser-safe.
 */
import { round4, wilsonInterval } from "@skillrig/stats";
import type { CountOfN, DistractorReport } from "./format.js";

interface RunsOfQuery {
  engine: string;
  fired?: Array<string | null>;
}

export interface ConfusionInput {
  skillName: string;
  neighbours: string[];
  engines: string[];
  /** The skill under test's should_trigger queries, per engine. */
  own: RunsOfQuery[];
  /** The neighbours' queries, per engine, with their owner. */
  neighbourQueries: Array<RunsOfQuery & { owner: string }>;
}

export function countOfN(count: number, n: number): CountOfN {
  const ci = wilsonInterval(count, n);
  return { count, n, rate: n === 0 ? null : round4(count / n), ci95: ci ? [round4(ci[0]), round4(ci[1])] : null };
}

type Row = DistractorReport["confusion"][number]["rows"][number];

function row(owner: string, skills: string[], queries: RunsOfQuery[]): Row {
  const fired: Record<string, number> = Object.fromEntries(skills.map((s) => [s, 0]));
  let none = 0;
  let n = 0;
  for (const q of queries)
    for (const f of q.fired ?? []) {
      n += 1;
      if (f === null) none += 1;
      else fired[f] = (fired[f] ?? 0) + 1;
    }
  return { owner, fired, none, n };
}

export function confusionTables(input: ConfusionInput): DistractorReport["confusion"] {
  const skills = [input.skillName, ...input.neighbours];
  const scopes: Array<string | null> = [...input.engines, ...(input.engines.length > 1 ? [null] : [])];
  return scopes.map((engine) => {
    const inScope = <T extends RunsOfQuery>(qs: T[]) => qs.filter((q) => engine === null || q.engine === engine);
    const own = row(input.skillName, skills, inScope(input.own));
    const theirs = input.neighbours.map((name) =>
      row(
        name,
        skills,
        inScope(input.neighbourQueries).filter((q) => q.owner === name),
      ),
    );
    const onNeighbours = theirs.reduce((a, r) => ({ count: a.count + (r.fired[input.skillName] ?? 0), n: a.n + r.n }), { count: 0, n: 0 });
    return {
      engine,
      rows: [own, ...theirs],
      picked: countOfN(own.fired[input.skillName] ?? 0, own.n),
      fired_on_neighbours: countOfN(onNeighbours.count, onNeighbours.n),
    };
  });
}
