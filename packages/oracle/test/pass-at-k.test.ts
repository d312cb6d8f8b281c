import { describe, expect, it } from "vitest";
import { passAtK, reportedKs, suiteKs } from "@skillrig/oracle";

describe("passAtK (unbiased estimator, product form)", () => {
  it("matches values worked out by hand from 1 - C(n-c, k) / C(n, k)", () => {
    // n=5, c=2, k=2: C(3,2)/C(5,2) = 3/10 -> 0.7
    expect(passAtK(5, 2, 2)).toBeCloseTo(0.7, 12);
    // n=10, c=3, k=5: C(7,5)/C(10,5) = 21/252 -> 1 - 1/12
    expect(passAtK(10, 3, 5)).toBeCloseTo(11 / 12, 12);
    // n=4, c=1, k=3: C(3,3)/C(4,3) = 1/4 -> 0.75
    expect(passAtK(4, 1, 3)).toBeCloseTo(0.75, 12);
    // k=1 is the pass rate
    expect(passAtK(200, 37, 1)).toBeCloseTo(37 / 200, 12);
  });

  it("is 1 when every draw of k must hold a passing sample, 0 when none passed", () => {
    expect(passAtK(10, 8, 3)).toBe(1);
    expect(passAtK(10, 0, 10)).toBe(0);
    expect(passAtK(1, 1, 1)).toBe(1);
  });

  it("stays finite and exact-ish for n = 200 where the binomials overflow doubles' integer range", () => {
    // C(199, 100) / C(200, 100) = 100 / 200
    expect(passAtK(200, 1, 100)).toBeCloseTo(0.5, 10);
  });

  it("refuses k > n and other impossible inputs", () => {
    expect(() => passAtK(3, 1, 4)).toThrow(RangeError);
    expect(() => passAtK(3, 4, 1)).toThrow(RangeError);
    expect(() => passAtK(0, 0, 1)).toThrow(RangeError);
  });
});

describe("reportedKs", () => {
  it("lists 1, the powers of ten up to the sample count, and the asked-for k that fit", () => {
    expect(reportedKs(1)).toEqual([1]);
    expect(reportedKs(10)).toEqual([1, 10]);
    expect(reportedKs(200, [5, 25, 500])).toEqual([1, 5, 10, 25, 100]);
    expect(reportedKs(0)).toEqual([]);
    expect(reportedKs(3, [3, 0, 2.5])).toEqual([1, 3]);
  });

  it("is the one rule: suiteKs is the same function", () => {
    expect(suiteKs).toBe(reportedKs);
  });
});
