import { spawnSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  hostFingerprint,
  notPrivate,
  probeCacheFile,
  probeHost,
  readCachedProbe,
  writeCachedProbe,
  type HostProbe,
} from "@skillrig/sandbox";

const dir = mkdtempSync(join(tmpdir(), "probe-cache-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function tool(name: string, content = "#!/bin/sh\n"): string {
  const file = join(dir, name);
  writeFileSync(file, content, { mode: 0o755 });
  return file;
}

const probe = (python: string): HostProbe => ({
  isRoot: false,
  bwrap: "/usr/bin/bwrap",
  parentDeathSignal: true,
  namespacesWork: true,
  python: { executable: python, prefixes: ["/usr"] },
});

const asRoot = process.getuid?.() === 0;

describe.runIf(asRoot)("a probe cache someone else could have written (root)", () => {
  // A forged entry could name another bubblewrap or bind the task's folder in as a Python prefix.
  const forged = (python: string): HostProbe => ({ ...probe(python), bwrap: "/tmp/not-bubblewrap" });

  it("is not read when the file or its folder is writable by others, or the file is not root's", () => {
    const python = tool("python3.forged", "ELF");
    for (const [name, spoil] of [
      ["file-mode", (file: string) => chmodSync(file, 0o666)],
      ["folder-mode", (file: string) => chmodSync(dirname(file), 0o777)],
      ["file-owner", (file: string) => chownSync(file, 54321, 54321)],
    ] as const) {
      const folder = mkdtempSync(join(dir, `${name}-`));
      const file = join(folder, "probe.json");
      writeCachedProbe("key", forged(python), file);
      expect(readCachedProbe("key", file), name).toEqual(forged(python));
      spoil(file);
      expect(readCachedProbe("key", file), name).toBeUndefined();
    }
  });

  it("is not written into a folder others may write", () => {
    const folder = mkdtempSync(join(dir, "open-"));
    chmodSync(folder, 0o777);
    const file = join(folder, "probe.json");
    writeCachedProbe("key", probe(tool("python3.open", "ELF")), file);
    expect(existsSync(file)).toBe(false);
    expect(notPrivate(file)).toMatch(/is writable by its group and others \(mode 0777\)/);
  });
});

describe("the host probe cache", () => {
  it("is found under $XDG_CACHE_HOME, can be moved with SKILLRIG_PROBE_CACHE, and turned off", () => {
    expect(probeCacheFile({ XDG_CACHE_HOME: "/x/cache" }, 0)).toBe("/x/cache/skillrig/probe.json");
    expect(probeCacheFile({ SKILLRIG_PROBE_CACHE: "/y/p.json" }, 0)).toBe("/y/p.json");
    expect(probeCacheFile({ SKILLRIG_PROBE_CACHE: "off" }, 0)).toBeUndefined();
  });

  it("is kept by root only: another user's weak-level runs run code as that user, who could rewrite it", () => {
    expect(probeCacheFile({ XDG_CACHE_HOME: "/x/cache" }, 1000)).toBeUndefined();
    expect(probeCacheFile({ SKILLRIG_PROBE_CACHE: "/y/p.json" }, 1000)).toBeUndefined();
  });

  it("hands a stored probe back while the tools are unchanged, and not once one of them changes", () => {
    const file = join(dir, "cache-a.json");
    const tools = { bwrap: tool("bwrap"), prlimit: tool("prlimit"), setpriv: tool("setpriv"), python3: tool("python3") };
    const python = tool("python3.real", "ELF");
    const env = { PATH: "/bin" };
    const before = hostFingerprint(tools, { env, cwd: dir });
    writeCachedProbe(before, probe(python), file);
    expect(readCachedProbe(before, file)).toEqual(probe(python));
    expect(hostFingerprint(tools, { env, cwd: dir })).toBe(before);

    // A tool upgraded in place (new size, new mtime) gives another key.
    writeFileSync(tools.bwrap, "#!/bin/sh\n# a newer bubblewrap\n");
    expect(hostFingerprint(tools, { env, cwd: dir })).not.toBe(before);
    // So does another python3 chosen for this folder, another PATH, or another pyenv version.
    const fresh = hostFingerprint(tools, { env, cwd: dir });
    writeFileSync(join(dir, ".python-version"), "3.12.1\n");
    expect(hostFingerprint(tools, { env, cwd: dir })).not.toBe(fresh);
    expect(hostFingerprint(tools, { env: { PATH: "/opt/bin:/bin" }, cwd: dir })).not.toBe(hostFingerprint(tools, { env, cwd: dir }));
    expect(hostFingerprint(tools, { env: { ...env, PYENV_VERSION: "3.13" }, cwd: dir })).not.toBe(
      hostFingerprint(tools, { env, cwd: dir }),
    );
  });

  it("drops an entry whose interpreter changed since it was probed", () => {
    const file = join(dir, "cache-b.json");
    const python = tool("python3.b", "ELF");
    writeCachedProbe("key", probe(python), file);
    expect(readCachedProbe("key", file)).toBeDefined();
    utimesSync(python, new Date(), new Date(Date.now() + 5000));
    expect(readCachedProbe("key", file)).toBeUndefined();
  });

  it("ignores a malformed or hostile file instead of trusting it", () => {
    const file = join(dir, "cache-c.json");
    writeFileSync(file, "{ not json");
    expect(readCachedProbe("key", file)).toBeUndefined();
    writeFileSync(file, JSON.stringify({ format: 2, entries: { key: { probe: { isRoot: "yes" }, python: "-" } } }));
    expect(readCachedProbe("key", file)).toBeUndefined();
    // And is rewritten whole on the next store.
    writeCachedProbe("key", probe(tool("python3.c", "ELF")), file);
    expect(JSON.parse(readFileSync(file, "utf8")).entries.key.probe.isRoot).toBe(false);
  });

  it.runIf(asRoot)("is what another skillrig process uses: it does not probe again while the host is unchanged", () => {
    const file = join(dir, "cache-process.json");
    const env = { ...process.env, SKILLRIG_PROBE_CACHE: file };
    const script = `import("@skillrig/sandbox").then(({ probeHost }) => process.stdout.write(JSON.stringify(probeHost())))`;
    const run = () => spawnSync(process.execPath, ["--input-type=module", "-e", script], { env, encoding: "utf8", cwd: __dirname });
    const first = JSON.parse(run().stdout) as HostProbe;
    expect(first).toEqual(probeHost(true));
    // Mark the stored entry: a process that re-probed would not carry the mark.
    const cache = JSON.parse(readFileSync(file, "utf8"));
    const [key] = Object.keys(cache.entries);
    cache.entries[key].probe.namespacesError = "marked in the cache";
    writeFileSync(file, JSON.stringify(cache));
    expect((JSON.parse(run().stdout) as HostProbe).namespacesError).toBe("marked in the cache");
  });
});
