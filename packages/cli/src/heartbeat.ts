/**
 * A "still running" line when a long engine turn has printed nothing for a while, so a user can tell a slow
 * model from a hung one. The interval is 15 s ($SKILLRIG_HEARTBEAT_MS overrides it; 0 turns it off).
 */
export interface Heartbeat {
  /** Something was printed: the next heartbeat is a full interval away. */
  touch(): void;
  stop(): void;
}

export function heartbeatInterval(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.SKILLRIG_HEARTBEAT_MS;
  if (raw === undefined || raw === "") return 15_000;
  const n = Number(raw);
  return Number.isFinite(n) && n >= 0 ? n : 15_000;
}

/** Calls `write(describe(elapsedMs, quietMs))` whenever `intervalMs` pass without a touch. */
export function startHeartbeat(
  write: (line: string) => void,
  describe: (elapsedMs: number, quietMs: number) => string,
  intervalMs = heartbeatInterval(),
): Heartbeat {
  const started = Date.now();
  let last = started;
  if (intervalMs <= 0) return { touch() {}, stop() {} };
  const timer = setInterval(
    () => {
      const now = Date.now();
      if (now - last < intervalMs) return;
      write(describe(now - started, now - last));
      last = now;
    },
    Math.max(50, Math.min(intervalMs, 1000)),
  );
  // The heartbeat never keeps the process alive on its own.
  timer.unref();
  return {
    touch() {
      last = Date.now();
    },
    stop() {
      clearInterval(timer);
    },
  };
}

export function seconds(ms: number): string {
  return `${Math.round(ms / 1000)} s`;
}
