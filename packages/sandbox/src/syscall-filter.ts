/**
 * The seccomp filters the sandbox hands to bubblewrap (`--seccomp <fd>`): one builder, two rule sets.
 *
 * - Deliverables (`DELIVERABLE_RULES`, as root): no new user namespaces. As root, bubblewrap runs without a user
 *   namespace of its own (the code must run as a real per-run host uid), so nothing else stops the code, as that uid,
 *   from making one: inside it is "root" and may mount a tmpfs with no size cap, build mount namespaces, and so on.
 *   Unprivileged, bubblewrap's `--disable-userns` does this job. And the calls agents are refused, below.
 * - Agents (`AGENT_RULES`, the agent jail of agent-profile.ts): no new user namespaces (except for an engine whose
 *   own sandbox needs them), and the calls a jail does not need that open a way out or into another process: file handles (name_to_handle_at/open_by_handle_at, the "shocker" escape
 *   from a bind mount), ptrace and its relatives (process_vm_readv/writev, pidfd_getfd, process_madvise, kcmp), the
 *   kernel keyrings, bpf, perf events, userfaultfd, and io_uring (ENOSYS, so libuv and others fall back to plain
 *   system calls as on a kernel without it).
 *
 * Every rule set refuses a foreign system call ABI (i386 via int 0x80, x32), so the same calls cannot slip past
 * by another number, and answers clone3 with ENOSYS: its flags live in a struct BPF cannot read; glibc and Python
 * fall back to clone(), whose flags the filter checks, as Docker and Flatpak do.
 *
 * We chose a filter over an inner unprivileged bubblewrap layer because it costs no process and no exec (the kernel
 * runs a few dozen BPF instructions per system call) and it leaves the per-uid RLIMIT_NPROC accounting as it is.
 * The filter is classic BPF written out here, because it is small and libseccomp has no Node binding worth a
 * native dependency. The numbers are the kernel's (arch/x86/entry/syscalls/syscall_64.tbl; arm64 uses
 * include/uapi/asm-generic/unistd.h); `test/syscall-filter.test.ts` checks them against the installed headers.
 */
import { arch } from "node:process";

// linux/filter.h, linux/seccomp.h, linux/audit.h
const BPF_LD_W_ABS = 0x20;
const BPF_JEQ_K = 0x15;
const BPF_JGE_K = 0x35;
const BPF_JSET_K = 0x45;
const BPF_RET_K = 0x06;
const SECCOMP_RET_ALLOW = 0x7fff0000;
const SECCOMP_RET_ERRNO = 0x00050000;
const EPERM = 1;
const ENOSYS = 38;
const CLONE_NEWUSER = 0x10000000;
const X32_SYSCALL_BIT = 0x40000000;

/** struct seccomp_data: nr at 0, arch at 4, args[0] at 16 (its low 32 bits first: both ABIs are little-endian). */
const OFFSET_NR = 0;
const OFFSET_ARCH = 4;
const OFFSET_ARG0_LOW = 16;

/** The system calls a rule set may refuse outright. */
export type FilteredSyscall =
  | "name_to_handle_at"
  | "open_by_handle_at"
  | "ptrace"
  | "process_vm_readv"
  | "process_vm_writev"
  | "pidfd_getfd"
  | "process_madvise"
  | "kcmp"
  | "keyctl"
  | "add_key"
  | "request_key"
  | "bpf"
  | "perf_event_open"
  | "userfaultfd"
  | "io_uring_setup"
  | "io_uring_enter"
  | "io_uring_register";

export interface SyscallTable {
  auditArch: number;
  /** x86_64 numbers x32 calls with this bit set. */
  foreignBit?: number;
  numbers: Record<FilteredSyscall | "unshare" | "clone" | "clone3", number>;
}

export const SYSCALL_TABLES: Readonly<Record<string, SyscallTable>> = {
  x64: {
    auditArch: 0xc000003e,
    foreignBit: X32_SYSCALL_BIT,
    numbers: {
      unshare: 272,
      clone: 56,
      clone3: 435,
      name_to_handle_at: 303,
      open_by_handle_at: 304,
      ptrace: 101,
      process_vm_readv: 310,
      process_vm_writev: 311,
      pidfd_getfd: 438,
      process_madvise: 440,
      kcmp: 312,
      keyctl: 250,
      add_key: 248,
      request_key: 249,
      bpf: 321,
      perf_event_open: 298,
      userfaultfd: 323,
      io_uring_setup: 425,
      io_uring_enter: 426,
      io_uring_register: 427,
    },
  },
  arm64: {
    auditArch: 0xc00000b7,
    numbers: {
      unshare: 97,
      clone: 220,
      clone3: 435,
      name_to_handle_at: 264,
      open_by_handle_at: 265,
      ptrace: 117,
      process_vm_readv: 270,
      process_vm_writev: 271,
      pidfd_getfd: 438,
      process_madvise: 440,
      kcmp: 272,
      keyctl: 219,
      add_key: 217,
      request_key: 218,
      bpf: 280,
      perf_event_open: 241,
      userfaultfd: 282,
      io_uring_setup: 425,
      io_uring_enter: 426,
      io_uring_register: 427,
    },
  },
};

export interface SyscallRules {
  /** unshare/clone with CLONE_NEWUSER -> EPERM, clone3 -> ENOSYS. */
  noUserNamespaces: boolean;
  /** Refused with EPERM. */
  deny: readonly FilteredSyscall[];
  /** Refused with ENOSYS (callers that probe for the call fall back, as on a kernel without it). */
  absent: readonly FilteredSyscall[];
}

/** An engine's agent and every process it starts. */
export const AGENT_RULES: SyscallRules = Object.freeze<SyscallRules>({
  noUserNamespaces: true,
  deny: [
    "name_to_handle_at",
    "open_by_handle_at",
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "pidfd_getfd",
    "process_madvise",
    "kcmp",
    "keyctl",
    "add_key",
    "request_key",
    "bpf",
    "perf_event_open",
    "userfaultfd",
  ],
  absent: ["io_uring_setup", "io_uring_enter", "io_uring_register"],
});

/**
 * Deliverable code (as root; unprivileged, bubblewrap's --disable-userns stops user namespaces and there is no
 * filter): the same calls refused as for agents. A deliverable needs none of them, and a per-run uid without
 * capabilities cannot reach another uid's processes anyway: this is the second wall.
 */
export const DELIVERABLE_RULES: SyscallRules = AGENT_RULES;

type Instruction = [code: number, jt: number, jf: number, k: number];
type Target = "deny" | "nosys" | "flags";
type Step = Instruction | { code: number; k: number; jumpTo: Target; when: boolean };

/** The compiled filter (an array of struct sock_filter) for `machine`, or undefined on an architecture without a table. */
export function syscallFilter(rules: SyscallRules, machine: string = arch): Buffer | undefined {
  const table = SYSCALL_TABLES[machine];
  if (!table) return undefined;
  const { numbers } = table;
  // Jump offsets count instructions skipped; the return blocks sit at the end: clone flags, DENY, NOSYS.
  const body: Step[] = [];
  body.push([BPF_LD_W_ABS, 0, 0, OFFSET_ARCH]);
  body.push({ code: BPF_JEQ_K, k: table.auditArch, jumpTo: "deny", when: false });
  body.push([BPF_LD_W_ABS, 0, 0, OFFSET_NR]);
  if (table.foreignBit !== undefined) body.push({ code: BPF_JGE_K, k: table.foreignBit, jumpTo: "deny", when: true });
  for (const name of rules.absent) body.push({ code: BPF_JEQ_K, k: numbers[name], jumpTo: "nosys", when: true });
  for (const name of rules.deny) body.push({ code: BPF_JEQ_K, k: numbers[name], jumpTo: "deny", when: true });
  if (rules.noUserNamespaces) {
    body.push({ code: BPF_JEQ_K, k: numbers.clone3, jumpTo: "nosys", when: true });
    body.push({ code: BPF_JEQ_K, k: numbers.unshare, jumpTo: "flags", when: true });
    body.push({ code: BPF_JEQ_K, k: numbers.clone, jumpTo: "flags", when: true });
  }
  body.push([BPF_RET_K, 0, 0, SECCOMP_RET_ALLOW]);
  const flagsAt = body.length;
  if (rules.noUserNamespaces) {
    body.push([BPF_LD_W_ABS, 0, 0, OFFSET_ARG0_LOW]);
    body.push({ code: BPF_JSET_K, k: CLONE_NEWUSER, jumpTo: "deny", when: true });
    body.push([BPF_RET_K, 0, 0, SECCOMP_RET_ALLOW]);
  }
  const denyAt = body.length;
  body.push([BPF_RET_K, 0, 0, SECCOMP_RET_ERRNO | EPERM]);
  const nosysAt = body.length;
  body.push([BPF_RET_K, 0, 0, SECCOMP_RET_ERRNO | ENOSYS]);

  const targets: Record<Target, number> = { deny: denyAt, nosys: nosysAt, flags: flagsAt };
  const program: Instruction[] = body.map((step, index) => {
    if (Array.isArray(step)) return step;
    const offset = targets[step.jumpTo] - (index + 1);
    if (offset > 255) throw new Error("syscallFilter: a jump past 255 instructions (too many rules for classic BPF jumps)");
    return step.when ? [step.code, offset, 0, step.k] : [step.code, 0, offset, step.k];
  });
  const bytes = Buffer.alloc(program.length * 8);
  program.forEach(([code, jt, jf, k], i) => {
    bytes.writeUInt16LE(code, i * 8);
    bytes.writeUInt8(jt, i * 8 + 2);
    bytes.writeUInt8(jf, i * 8 + 3);
    bytes.writeUInt32LE(k >>> 0, i * 8 + 4);
  });
  return bytes;
}

/** The deliverable sandbox's filter: no user namespaces. */
export function userNamespaceFilter(machine: string = arch): Buffer | undefined {
  return syscallFilter(DELIVERABLE_RULES, machine);
}

/**
 * The agent jail's filter; `userNamespaces`: an engine whose own sandbox needs them (codex's bubblewrap) may create
 * user namespaces, and every other rule stays.
 */
export function agentFilter(userNamespaces = false, machine: string = arch): Buffer | undefined {
  return syscallFilter(userNamespaces ? { ...AGENT_RULES, noUserNamespaces: false } : AGENT_RULES, machine);
}
