import { describe, expect, it } from "vitest";
import { passAtK, reportedKs } from "@skillrig/solve";

// Reference values from the closed form 1 - C(n-c, k) / C(n, k).
function closedForm(n: number, c: number, k: number): number {
  const choose = (a: number, b: number): number => {
    if (b < 0 || b > a) return 0;
    let r = 1;
    for (let i = 1; i <= b; i++) r = (r * (a - b + i)) / i;
    return r;
  };
  return 1 - choose(n - c, k) / choose(n, k);
}

describe("passAtK", () => {
  it("is the pass rate for k = 1", () => {
    expect(passAtK(10, 3, 1)).toBeCloseTo(0.3, 12);
    expect(passAtK(4, 1, 1)).toBeCloseTo(0.25, 12);
  });

  it("matches the closed form of the unbiased estimator", () => {
    expect(passAtK(10, 3, 5)).toBeCloseTo(1 - 21 / 252, 12);
    for (const [n, c, k] of [
      [5, 2, 2],
      [20, 1, 10],
      [7, 0, 3],
      [50, 17, 25],
    ] as const) {
      expect(passAtK(n, c, k)).toBeCloseTo(closedForm(n, c, k), 10);
    }
  });

  it("is 0 with no passing attempt and 1 once k exceeds the failures", () => {
    expect(passAtK(5, 0, 5)).toBe(0);
    expect(passAtK(5, 5, 1)).toBe(1);
    expect(passAtK(5, 3, 3)).toBe(1);
  });

  it("stays finite for many attempts", () => {
    const v = passAtK(2000, 1, 1000);
    expect(v).toBeCloseTo(0.5, 10);
  });

  it("refuses k above n or counts out of range", () => {
    expect(() => passAtK(3, 1, 4)).toThrow(RangeError);
    expect(() => passAtK(3, 4, 1)).toThrow(RangeError);
    expect(() => passAtK(0, 0, 1)).toThrow(RangeError);
  });
});

describe("reportedKs", () => {
  it("is the oracle's: a solve batch lists k = 1, the powers of ten and its attempts per task", async () => {
    const oracle = await import("@skillrig/oracle");
    expect(reportedKs).toBe(oracle.reportedKs);
    expect(reportedKs(3, [3])).toEqual([1, 3]);
    expect(reportedKs(25, [25])).toEqual([1, 10, 25]);
  });
});
