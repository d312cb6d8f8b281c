import { describe, expect, it } from "vitest";
import {
  CASE_FILE_BOUNDS,
  CLI_ARGV_MESSAGE,
  caseFileBounds,
  unsafePathReason,
  validateProcessExpected,
  validateProcessInput,
} from "@skillrig/deliverable-kit";

const SCRIPT = { type: "script", argv: false };
const CLI = { type: "cli", argv: true };

const at = "/tests/4";
const problems = (r: { violations: Array<{ pointer?: string; message: string }> }) => r.violations.map((v) => [v.pointer, v.message]);

describe("script input (Input Contract v1.0, 2.2 / 3.2)", () => {
  it("accepts an object with optional stdin and files and fills what is left out", () => {
    expect(validateProcessInput(SCRIPT, {}, at)).toEqual({ value: { argv: [], stdin: "", files: {} }, violations: [] });
    expect(validateProcessInput(SCRIPT, { stdin: "x\n", files: { "a/b.txt": "1" } }, at).value).toEqual({
      argv: [],
      stdin: "x\n",
      files: { "a/b.txt": "1" },
    });
  });

  it("must be an object", () => {
    for (const input of [["a"], "text", null, 3]) {
      const r = validateProcessInput(SCRIPT, input, at);
      expect(r.value).toBeUndefined();
      expect(problems(r)).toEqual([
        [
          `${at}/input`,
          expect.stringMatching(/^invalid_test_format: script input must be an object with optional "stdin" and "files", not /),
        ],
      ]);
    }
  });

  it("rejects unknown keys (argv belongs to cli), a non-string stdin, and non-string file contents", () => {
    const r = validateProcessInput(SCRIPT, { argv: ["x"], stdin: 1, files: { "a.txt": 5 }, env: {} }, at);
    expect(problems(r)).toEqual([
      [
        `${at}/input/argv`,
        'invalid_test_format: script input has unknown key "argv"; allowed: stdin, files (a script takes no arguments; use deliverable_type "cli")',
      ],
      [`${at}/input/env`, 'invalid_test_format: script input has unknown key "env"; allowed: stdin, files'],
      [`${at}/input/stdin`, "invalid_test_format: stdin must be a string, not number 1"],
      [`${at}/input/files/a.txt`, 'invalid_test_format: input files "a.txt" must be a string (the file\'s text), not number 5'],
    ]);
    expect(problems(validateProcessInput(SCRIPT, { files: ["a.txt"] }, at))).toEqual([
      [`${at}/input/files`, "invalid_test_format: input files must be an object mapping relative paths to contents, not a list"],
    ]);
  });

  it("rejects every unsafe files key with its pointer", () => {
    const keys = [
      "/etc/passwd",
      "../up.txt",
      "a/../../b",
      "",
      "nul\u0000.txt",
      "a\\b.txt",
      "..\\up.txt",
      "C:/x.txt",
      "./a.txt",
      "a//b",
      "dir/",
      "bell\u0007",
    ];
    const r = validateProcessInput(SCRIPT, { files: Object.fromEntries(keys.map((k) => [k, "x"])) }, at);
    expect(r.value).toBeUndefined();
    expect(r.violations).toHaveLength(keys.length);
    expect(r.violations.map((v) => v.pointer)).toContain(`${at}/input/files/~1etc~1passwd`);
    expect(
      r.violations.every(
        (v) => v.message.startsWith("invalid_test_format: input files key ") && v.message.includes("is not a safe relative path"),
      ),
    ).toBe(true);
  });

  it("rejects a path that is both a file and a folder", () => {
    expect(problems(validateProcessInput(SCRIPT, { files: { a: "1", "a/b": "2" } }, at))).toEqual([
      [`${at}/input/files`, 'invalid_test_format: input files "a" cannot be both a file and the folder of "a/b"'],
    ]);
  });

  it("names why a path is unsafe", () => {
    expect(unsafePathReason("/abs")).toBe("is absolute");
    expect(unsafePathReason("a/../b")).toBe('contains ".."');
    expect(unsafePathReason("")).toBe("is empty");
    expect(unsafePathReason("a\u0000")).toBe("contains a NUL character");
    expect(unsafePathReason("a\\b")).toBe("contains a backslash (use / between folders)");
    expect(unsafePathReason("c:x")).toBe("starts with a drive letter");
    expect(unsafePathReason("a/b/c.txt")).toBeUndefined();
    expect(unsafePathReason("..data")).toBeUndefined(); // a name that starts with dots is fine
  });
});

describe("cli input (Input Contract v1.0, 2.3 / 3.2 / 6)", () => {
  it("accepts {argv: [strings], stdin?, files?}", () => {
    expect(validateProcessInput(CLI, { argv: ["--in", "data.csv"], stdin: "" }, at)).toEqual({
      value: { argv: ["--in", "data.csv"], stdin: "", files: {} },
      violations: [],
    });
    expect(validateProcessInput(CLI, { argv: [] }, at).violations).toEqual([]);
  });

  it("says exactly 'invalid_test_format: cli input must include argv' when argv is missing or not a list of strings", () => {
    expect(CLI_ARGV_MESSAGE).toBe("invalid_test_format: cli input must include argv");
    expect(problems(validateProcessInput(CLI, ["--x"], at))).toEqual([[`${at}/input`, CLI_ARGV_MESSAGE]]);
    expect(problems(validateProcessInput(CLI, null, at))).toEqual([[`${at}/input`, CLI_ARGV_MESSAGE]]);
    expect(problems(validateProcessInput(CLI, { stdin: "" }, at))).toEqual([[`${at}/input`, CLI_ARGV_MESSAGE]]);
    expect(problems(validateProcessInput(CLI, { argv: "--x 1" }, at))).toEqual([[`${at}/input/argv`, CLI_ARGV_MESSAGE]]);
    expect(problems(validateProcessInput(CLI, { argv: ["--n", 3, null] }, at))).toEqual([
      [`${at}/input/argv/1`, CLI_ARGV_MESSAGE],
      [`${at}/input/argv/2`, CLI_ARGV_MESSAGE],
    ]);
  });

  it("checks stdin, files and unknown keys like script input", () => {
    expect(problems(validateProcessInput(CLI, { argv: [], files: { "../x": "" }, args: [] }, at))).toEqual([
      [`${at}/input/args`, 'invalid_test_format: cli input has unknown key "args"; allowed: argv, stdin, files'],
      [`${at}/input/files/..~1x`, 'invalid_test_format: input files key "../x" is not a safe relative path: it contains ".."'],
    ]);
  });
});

describe("expected of script and cli cases", () => {
  it("is an object with any of stdout, stderr, exit_code, files", () => {
    expect(validateProcessExpected({}, at).violations).toEqual([]);
    expect(validateProcessExpected({ stdout: "x", stderr: "", exit_code: 2, files: { "o/a.csv": "1" } }, at).violations).toEqual([]);
    expect(problems(validateProcessExpected("hello", at))).toEqual([
      [
        `${at}/expected`,
        'invalid_test_format: expected must be an object with any of stdout, stderr, exit_code, files, not string "hello"',
      ],
    ]);
    expect(problems(validateProcessExpected({ stdot: "x", exit_code: "0", files: { "/abs": "x" } }, at))).toEqual([
      [`${at}/expected/stdot`, 'invalid_test_format: expected has unknown key "stdot"; allowed: stdout, stderr, exit_code, files'],
      [`${at}/expected/exit_code`, 'invalid_test_format: expected exit_code must be an integer, not string "0"'],
      [`${at}/expected/files/~1abs`, 'invalid_test_format: expected files key "/abs" is not a safe relative path: it is absolute'],
    ]);
    expect(problems(validateProcessExpected({ exit_code: 1.5 }, at))).toEqual([
      [`${at}/expected/exit_code`, "invalid_test_format: expected exit_code must be an integer, not number 1.5"],
    ]);
  });
});

describe("bounds on files keys (issue 38: impossible file keys are said when the task is read)", () => {
  const deep = Array.from({ length: 2100 }, () => "d").join("/");
  const longName = `${"n".repeat(300)}.txt`;

  it("a key 2,100 folders deep, a 300-byte name, a path past 1024 bytes: invalid_test_format with the key's pointer", () => {
    const longPath = Array.from({ length: 20 }, () => "x".repeat(60)).join("/");
    const r = validateProcessInput(SCRIPT, { files: { [deep]: "x", [longName]: "y", [longPath]: "z", "ok.txt": "fine" } }, at);
    expect(r.value).toBeUndefined();
    expect(r.violations.map((v) => [v.pointer, v.rule])).toEqual([
      [`${at}/input/files/${deep.replace(/\//g, "~1")}`, "pathBounds"],
      [`${at}/input/files/${longName}`, "pathBounds"],
      [`${at}/input/files/${longPath.replace(/\//g, "~1")}`, "pathBounds"],
    ]);
    const [tooDeep, tooLongName, tooLongPath] = r.violations.map((v) => v.message);
    expect(tooDeep).toMatch(
      /^invalid_test_format: input files key "d\/d.*\.\.\. \(4199 characters\) is 2100 path components deep, past the limit of 32 \(oracle\.case_files\.max_depth\)$/,
    );
    expect(tooLongName).toMatch(/has a 304-byte name .*past the 255-byte limit .*\(oracle\.case_files\.max_name_bytes\)$/);
    expect(tooLongPath).toMatch(/is 1219 bytes long, past the 1024-byte path limit \(oracle\.case_files\.max_path_bytes\)$/);
  });

  it("names are counted in UTF-8 bytes, as the kernel counts them", () => {
    // 128 two-byte characters: 128 characters, 256 bytes.
    const r = validateProcessInput(SCRIPT, { files: { ["é".repeat(128)]: "x" } }, at);
    expect(r.violations[0]?.message).toMatch(/has a 256-byte name/);
    expect(validateProcessInput(SCRIPT, { files: { ["é".repeat(127)]: "x" } }, at).violations).toEqual([]);
  });

  it("too many files is one violation on the map, and expected files are bounded the same way", () => {
    const files = Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`f${i}`, ""]));
    expect(problems(validateProcessInput(SCRIPT, { files }, at))).toEqual([
      [`${at}/input/files`, "invalid_test_format: input files has 1001 files, past the limit of 1000 (oracle.case_files.max_files)"],
    ]);
    expect(validateProcessExpected({ files: { [deep]: "x" } }, at).violations[0]?.pointer).toBe(
      `${at}/expected/files/${deep.replace(/\//g, "~1")}`,
    );
  });

  it("the bounds come from the config (oracle.case_files) where it sets them", () => {
    const bounds = caseFileBounds({ oracle: { case_files: { max_depth: 2, max_files: 3 } } } as never);
    expect(bounds).toEqual({ ...CASE_FILE_BOUNDS, max_depth: 2, max_files: 3 });
    expect(validateProcessInput(SCRIPT, { files: { "a/b/c": "x" } }, at, bounds).violations[0]?.message).toMatch(
      /3 path components deep, past the limit of 2/,
    );
    expect(validateProcessInput(SCRIPT, { files: { "a/b": "x" } }, at, bounds).violations).toEqual([]);
  });
});
