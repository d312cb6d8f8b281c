/**
 * The seccomp filter builder: its system call numbers are the kernel's (checked against the installed headers:
 * x86_64's unistd_64.h, and asm-generic/unistd.h, which arm64 uses), the deliverable filter refuses what the agent
 * filter does, and the agent filter refuses what it says on this machine's kernel (real bubblewrap).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AGENT_RULES, agentFilter, DELIVERABLE_RULES, SYSCALL_TABLES, userNamespaceFilter } from "../src/syscall-filter.js";

/** `#define __NR_<name> <n>` (and asm-generic's `__NR3264_<name>`) of a header. */
function headerNumbers(file: string): Map<string, number> {
  const numbers = new Map<string, number>();
  for (const m of readFileSync(file, "utf8").matchAll(/^#define __NR(?:3264)?_(\w+)\s+(\d+)\s*$/gm))
    numbers.set(m[1] as string, Number(m[2]));
  return numbers;
}

function writeFilter(filter: Buffer): string {
  const file = join(mkdtempSync(join(tmpdir(), "skillrig-filter-")), "filter.bpf");
  writeFileSync(file, filter);
  return file;
}

const HEADERS: Record<string, string[]> = {
  x64: ["/usr/include/x86_64-linux-gnu/asm/unistd_64.h", "/usr/include/asm/unistd_64.h"],
  arm64: ["/usr/include/asm-generic/unistd.h"],
};

describe("syscall filter", () => {
  for (const [machine, table] of Object.entries(SYSCALL_TABLES)) {
    it(`the ${machine} numbers are the kernel headers' numbers`, () => {
      const header = HEADERS[machine]?.find((file) => existsSync(file));
      expect(header, `a kernel header for ${machine} (linux-libc-dev)`).toBeDefined();
      const numbers = headerNumbers(header as string);
      for (const [name, number] of Object.entries(table.numbers)) expect({ name, number }).toEqual({ name, number: numbers.get(name) });
    });
  }

  it("the deliverable filter refuses what the agent filter does (user namespaces included); an unknown architecture gets none", () => {
    expect(DELIVERABLE_RULES).toEqual({ ...AGENT_RULES, noUserNamespaces: true });
    expect(userNamespaceFilter("x64")?.equals(agentFilter(false, "x64") as Buffer)).toBe(true);
    // codex's exception drops only the user-namespace rule: a shorter program, every denial still in it.
    expect((agentFilter(true, "x64") as Buffer).length).toBeLessThan((agentFilter(false, "x64") as Buffer).length);
    expect(userNamespaceFilter("riscv64")).toBeUndefined();
  });

  it("bubblewrap loads the agent filter and the kernel refuses every denied call (EPERM) and io_uring (ENOSYS)", () => {
    const filter = agentFilter();
    expect(filter).toBeDefined();
    const numbers = SYSCALL_TABLES[process.arch]?.numbers as Record<string, number>;
    const calls = [...AGENT_RULES.deny, ...AGENT_RULES.absent, "getppid_control"];
    const program = [
      "import ctypes, errno, sys",
      "l = ctypes.CDLL(None, use_errno=True)",
      "for name, nr in zip(sys.argv[1::2], sys.argv[2::2]):",
      "    ctypes.set_errno(0); r = l.syscall(int(nr), 0, 0, 0, 0, 0)",
      "    print(name, errno.errorcode.get(ctypes.get_errno(), 'ok') if r < 0 else 'ok')",
    ].join("\n");
    const args = calls.flatMap((name) => [name, String(name === "getppid_control" ? (process.arch === "x64" ? 110 : 173) : numbers[name])]);
    const withFilter = spawnSync(
      "/bin/sh",
      [
        "-c",
        'f=$1; shift; exec "$@" 9<"$f"',
        "sh",
        writeFilter(filter as Buffer),
        "bwrap",
        "--unshare-pid",
        "--unshare-net",
        "--ro-bind",
        "/",
        "/",
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "--seccomp",
        "9",
        "--",
        "/usr/bin/python3",
        "-c",
        program,
        ...args,
      ],
      { encoding: "utf8" },
    );
    expect(withFilter.status, withFilter.stderr).toBe(0);
    const seen = Object.fromEntries(
      withFilter.stdout
        .trim()
        .split("\n")
        .map((line) => line.split(" ")),
    );
    expect(seen).toEqual({
      ...Object.fromEntries(AGENT_RULES.deny.map((name) => [name, "EPERM"])),
      ...Object.fromEntries(AGENT_RULES.absent.map((name) => [name, "ENOSYS"])),
      getppid_control: "ok",
    });
  });
});
