/**
 * A seccomp filter that keeps code from creating user namespaces, handed to bubblewrap (`--seccomp <fd>`).
 *
 * As root, bubblewrap runs without a user namespace of its own (the code must run as a real per-run host uid), so
 * nothing stops the code, as that uid, from making its own user namespace: inside one it is "root" and may mount
 * a tmpfs with no size cap (memory the rlimits do not see), build mount namespaces, and so on. Unprivileged,
 * bubblewrap's `--disable-userns` does this job; as root it cannot (it needs `--unshare-user`).
 *
 * We chose a seccomp filter over an inner unprivileged bubblewrap layer because it costs no process and no
 * exec (the kernel runs ~12 BPF instructions per system call), and it leaves the per-uid RLIMIT_NPROC accounting
 * as it is. The filter is classic BPF, written out here because it is tiny and libseccomp has no Node binding worth a
 * native dependency:
 *
 *   - unshare(flags) and clone(flags, ...) with CLONE_NEWUSER  -> EPERM
 *   - clone3()                                                 -> ENOSYS (its flags live in a struct BPF cannot
 *     read; glibc and Python fall back to clone(), which the rule above checks, as Docker and Flatpak do)
 *   - a foreign system call ABI (i386 via int 0x80, x32)       -> EPERM, so the same calls cannot slip past by number
 *   - everything else                                          -> allowed
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

interface SyscallTable {
  auditArch: number;
  unshare: number;
  clone: number;
  clone3: number;
  /** x86_64 numbers x32 calls with this bit set. */
  foreignBit?: number;
}

const TABLES: Record<string, SyscallTable> = {
  x64: { auditArch: 0xc000003e, unshare: 272, clone: 56, clone3: 435, foreignBit: X32_SYSCALL_BIT },
  arm64: { auditArch: 0xc00000b7, unshare: 97, clone: 220, clone3: 435 },
};

type Instruction = [code: number, jt: number, jf: number, k: number];

/** The compiled filter (an array of struct sock_filter) for this machine, or undefined on an architecture we have no table for. */
export function userNamespaceFilter(machine: string = arch): Buffer | undefined {
  const table = TABLES[machine];
  if (!table) return undefined;
  // Jump offsets count instructions skipped; the two return blocks sit at the end: DENY then NOSYS.
  const body: Array<Instruction | { jumpTo: "deny" | "nosys" | "flags"; code: number; k: number; when: boolean }> = [];
  body.push([BPF_LD_W_ABS, 0, 0, OFFSET_ARCH]);
  body.push({ code: BPF_JEQ_K, k: table.auditArch, jumpTo: "deny", when: false });
  body.push([BPF_LD_W_ABS, 0, 0, OFFSET_NR]);
  if (table.foreignBit !== undefined) body.push({ code: BPF_JGE_K, k: table.foreignBit, jumpTo: "deny", when: true });
  body.push({ code: BPF_JEQ_K, k: table.clone3, jumpTo: "nosys", when: true });
  body.push({ code: BPF_JEQ_K, k: table.unshare, jumpTo: "flags", when: true });
  body.push({ code: BPF_JEQ_K, k: table.clone, jumpTo: "flags", when: true });
  body.push([BPF_RET_K, 0, 0, SECCOMP_RET_ALLOW]);
  const flagsAt = body.length;
  body.push([BPF_LD_W_ABS, 0, 0, OFFSET_ARG0_LOW]);
  body.push({ code: BPF_JSET_K, k: CLONE_NEWUSER, jumpTo: "deny", when: true });
  body.push([BPF_RET_K, 0, 0, SECCOMP_RET_ALLOW]);
  const denyAt = body.length;
  body.push([BPF_RET_K, 0, 0, SECCOMP_RET_ERRNO | EPERM]);
  const nosysAt = body.length;
  body.push([BPF_RET_K, 0, 0, SECCOMP_RET_ERRNO | ENOSYS]);

  const targets = { deny: denyAt, nosys: nosysAt, flags: flagsAt };
  const program: Instruction[] = body.map((step, index) => {
    if (Array.isArray(step)) return step;
    const offset = targets[step.jumpTo] - (index + 1);
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
