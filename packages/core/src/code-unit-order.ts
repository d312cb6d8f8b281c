/**
 * Order by UTF-16 code unit: the same on every machine whatever its locale, and without the ICU collator that a
 * process's first `localeCompare` starts (~15 ms, once per command).
 */
export function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
