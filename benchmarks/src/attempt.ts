/** A figure that may fail to be measured (a piece not landed yet, a run that did not pass) without sinking the rest. */
export type Attempt<T> = { ok: true; value: T } | { ok: false; reason: string };

export async function attempt<T>(measure: () => Promise<T>): Promise<Attempt<T>> {
  try {
    return { ok: true, value: await measure() };
  } catch (error) {
    return { ok: false, reason: (error instanceof Error ? error.message : String(error)).replace(/\s+/g, " ").trim() };
  }
}

/** Footnotes for cells that could not be measured, so the table stays narrow and the reason is still there. */
export class Footnotes {
  readonly lines: string[] = [];
  cell<T>(result: Attempt<T>, show: (value: T) => string): string {
    if (result.ok) return show(result.value);
    let index = this.lines.findIndex((l) => l.endsWith(result.reason.slice(0, 300)));
    if (index < 0) index = this.lines.push(`[${this.lines.length + 1}] not measured: ${result.reason.slice(0, 300)}`) - 1;
    return `not measured [${index + 1}]`;
  }
}

export function both<A, B>(a: Attempt<A>, b: Attempt<B>): Attempt<[A, B]> {
  if (!a.ok) return a;
  if (!b.ok) return b;
  return { ok: true, value: [a.value, b.value] };
}
