/**
 * One numbering of samples everywhere people read them (the console, the JUnit and HTML reports, `skillrig view`,
 * `runs diff`): sample N is the N-th sample of its task in the samples file's order, from 1. The reports' `sample`
 * field stays the 0-based position it always was (readers depend on it); this is the one place that turns it into
 * the number shown.
 */
export function sampleNumber(position: number): number {
  return position + 1;
}
