import { describe, expect, it } from "vitest";
import {
  isSignificantDrop,
  mcnemarExactP,
  pairedBootstrapInterval,
  pairedDelta,
  signTestP,
  wilsonInterval,
  type Pair,
} from "../src/index.js";

/** `n` pairs of which `broke` passed before and fail now; the rest passed on both sides. */
const flips = (n: number, broke: number): Pair[] => Array.from({ length: n }, (_, i) => (i < broke ? [1, 0] : [1, 1]));

describe("exact sign test / McNemar", () => {
  it("matches binomial tails computed by hand", () => {
    // 10 discordant pairs all one way: 2 * (1/2)^10.
    expect(mcnemarExactP(0, 10)).toBeCloseTo(0.001953125, 12);
    // 3 up, 1 down: 2 * (C(4,0) + C(4,1)) / 16.
    expect(signTestP(3, 1)).toBeCloseTo(0.625, 12);
    // 7 up, 2 down: 2 * (1 + 9 + 36) / 512.
    expect(signTestP(7, 2)).toBeCloseTo(0.1796875, 12);
    expect(signTestP(1, 0)).toBe(1);
    expect(signTestP(0, 0)).toBe(1);
    expect(signTestP(5, 5)).toBe(1);
  });

  it("stays finite for thousands of pairs", () => {
    const p = signTestP(1100, 900);
    expect(p).toBeGreaterThan(0);
    expect(p).toBeLessThan(0.001);
    expect(signTestP(3000, 0)).toBe(0);
  });

  it("refuses counts that are not whole numbers", () => {
    expect(() => signTestP(-1, 2)).toThrow(/whole numbers/);
    expect(() => signTestP(1.5, 2)).toThrow(/whole numbers/);
  });
});

describe("Wilson interval", () => {
  // Newcombe (1998), "Two-sided confidence intervals for the single proportion", Table I, method 3.
  it.each([
    [81, 263, 0.2553, 0.3662],
    [15, 148, 0.0624, 0.1605],
    [0, 20, 0, 0.1611],
    [1, 29, 0.0061, 0.1718],
  ])("%i of %i is [%f, %f]", (k, n, lo, hi) => {
    const [l, h] = wilsonInterval(k, n)!;
    expect(l).toBeCloseTo(lo, 4);
    expect(h).toBeCloseTo(hi, 4);
  });

  it("is [.., 1] at n of n and null at 0 of 0", () => {
    expect(wilsonInterval(5, 5)![1]).toBe(1);
    expect(wilsonInterval(0, 0)).toBeNull();
    expect(() => wilsonInterval(3, 2)).toThrow(/successes <= n/);
  });
});

describe("paired bootstrap interval", () => {
  it("is reproducible with a seed and changes with another", () => {
    const diffs = [0.31, -0.12, 0.74, 0.05, -0.4, 0.22, 0.9, -0.03, 0.18, 0.47, -0.26, 0.61];
    const a = pairedBootstrapInterval(diffs);
    expect(pairedBootstrapInterval(diffs)).toEqual(a);
    expect(pairedBootstrapInterval(diffs, { seed: 7 })).not.toEqual(a);
    expect(a![0]).toBeLessThan(a![1]);
  });

  it("is [0, 0] when nothing changed, null with no pairs", () => {
    expect(pairedBootstrapInterval([0, 0, 0])).toEqual([0, 0]);
    expect(pairedBootstrapInterval([])).toBeNull();
  });
});

describe("pairedDelta", () => {
  it("10 flipped cases out of 40 is a significant drop", () => {
    const d = pairedDelta(flips(40, 10));
    expect(d).toMatchObject({ before: 1, after: 0.75, delta: -0.25, pairs: 40, p_value: 0.001953 });
    expect(d.ci95![1]).toBeLessThan(0);
    expect(d.ci95![0]).toBeGreaterThan(-0.5);
    expect(isSignificantDrop(d)).toBe(true);
  });

  it("1 flipped case out of 40 is not", () => {
    const d = pairedDelta(flips(40, 1));
    expect(d.delta).toBe(-0.025);
    expect(d.p_value).toBe(1);
    expect(d.ci95![1]).toBe(0);
    expect(isSignificantDrop(d)).toBe(false);
  });

  it("identical runs: an interval of [0, 0] and p = 1", () => {
    const d = pairedDelta(flips(12, 0));
    expect(d).toEqual({ before: 1, after: 1, delta: 0, ci95: [0, 0], p_value: 1, pairs: 12 });
  });

  it("three pairs that all fell are not significant: the bootstrap alone would say so, the exact test does not", () => {
    const d = pairedDelta(flips(3, 3));
    expect(d.ci95).toEqual([-1, -1]);
    expect(d.p_value).toBe(0.25);
    expect(isSignificantDrop(d)).toBe(false);
  });

  it("keeps the sides it is given and nulls the delta of a missing side", () => {
    const d = pairedDelta([[0.5, 1]], { before: 0.4, after: null });
    expect(d.before).toBe(0.4);
    expect(d.delta).toBeNull();
    expect(d.pairs).toBe(1);
    expect(pairedDelta([])).toEqual({ before: null, after: null, delta: null, ci95: null, p_value: null, pairs: 0 });
  });
});
