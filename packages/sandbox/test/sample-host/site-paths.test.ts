/**
 * The sample harness and the sample host start Python with -S and add site's paths themselves
 * (sample_harness.add_site_paths): a deliverable must import what `python3` could import, from a real venv with
 * a real .pth file, while the .pth file's code never runs in the process that forks every case.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, test } from "vitest";

const HARNESS_DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "src", "sample-host");
let dir: string;
let venvPython: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "skillrig-site-paths-"));
  execFileSync("python3", ["-m", "venv", "--without-pip", join(dir, "venv")]);
  venvPython = join(dir, "venv", "bin", "python");
  const sitePackages = execFileSync(venvPython, ["-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], {
    encoding: "utf8",
  }).trim();
  await mkdir(join(dir, "extra"));
  await writeFile(join(dir, "extra", "helper_mod.py"), "ANSWER = 42\n");
  await writeFile(join(sitePackages, "from_venv.py"), "NAME = 'venv'\n");
  await writeFile(
    join(sitePackages, "extra.pth"),
    `# a comment line\n${join(dir, "extra")}\nimport os; open(${JSON.stringify(join(dir, "pth-code-ran"))}, "w").close()\n${join(dir, "missing")}\n`,
  );
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const probe = `
import json, sys
sys.path.insert(0, ${JSON.stringify(HARNESS_DIR)})
import sample_harness
sys.path.pop(0)
sample_harness.add_site_paths()
import helper_mod, from_venv
print(json.dumps({"path": sys.path[1:], "answer": helper_mod.ANSWER, "venv": from_venv.NAME, "exit": repr(exit), "threading": "threading" in sys.modules}))
`;

test("with -S, add_site_paths gives sys.path what site gives it (a venv's site-packages, a .pth file's folders) without running the .pth file's code", () => {
  const withoutSite = JSON.parse(execFileSync(venvPython, ["-S", "-c", probe], { cwd: dir, encoding: "utf8" })) as {
    path: string[];
    answer: number;
    venv: string;
    exit: string;
    threading: boolean;
  };
  expect(withoutSite.answer).toBe(42);
  expect(withoutSite.venv).toBe("venv");
  expect(withoutSite.exit).toBe("Use exit() or Ctrl-D (i.e. EOF) to exit"); // site's builtins are there
  expect(withoutSite.path).toContain(join(dir, "extra"));
  expect(withoutSite.path).not.toContain(join(dir, "missing"));
  expect(existsSync(join(dir, "pth-code-ran"))).toBe(false);

  // The same venv with site on: the same paths, and there the .pth file's code does run (so the check above means something).
  const withSite = JSON.parse(
    execFileSync(venvPython, ["-c", "import json, sys; print(json.dumps(sys.path[1:]))"], { cwd: dir, encoding: "utf8" }),
  );
  expect(withoutSite.path).toEqual(withSite);
  expect(existsSync(join(dir, "pth-code-ran"))).toBe(true);
});

test("without -S (site already ran) add_site_paths changes nothing", () => {
  const out = JSON.parse(
    execFileSync(
      "python3",
      [
        "-c",
        `import json, sys\nbefore = list(sys.path)\nsys.path.insert(0, ${JSON.stringify(HARNESS_DIR)})\nimport sample_harness\nsys.path.pop(0)\nsample_harness.add_site_paths()\nprint(json.dumps(before == sys.path))`,
      ],
      { encoding: "utf8" },
    ),
  );
  expect(out).toBe(true);
});
