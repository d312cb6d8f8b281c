import { execFileSync } from "node:child_process";

/**
 * Builds a real, installable pure-Python wheel `<name>-<version>-py3-none-any.whl` in `dir` with Python's zipfile,
 * since no package index is reachable here. The package exports VALUE and a console script `<name>-cli`.
 */
export function buildTinyWheel(dir: string, name: string, version: string, value: string): string {
  const script = String.raw`
import base64, hashlib, sys, zipfile
dir, name, version, value = sys.argv[1:5]
dist = f"{name}-{version}.dist-info"
files = {
    f"{name}/__init__.py": f"VALUE = {value!r}\ndef main():\n    print('{name} says ' + VALUE)\n",
    f"{dist}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
    f"{dist}/WHEEL": "Wheel-Version: 1.0\nGenerator: skillrig-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    f"{dist}/entry_points.txt": f"[console_scripts]\n{name}-cli = {name}:main\n",
}
record = []
for path, text in files.items():
    data = text.encode()
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    record.append(f"{path},sha256={digest},{len(data)}")
record.append(f"{dist}/RECORD,,")
files[f"{dist}/RECORD"] = "\n".join(record) + "\n"
out = f"{dir}/{name}-{version}-py3-none-any.whl"
with zipfile.ZipFile(out, "w") as z:
    for path, text in files.items():
        z.writestr(path, text)
print(out)
`;
  return execFileSync("python3", ["-c", script, dir, name, version, value], { encoding: "utf8" }).trim();
}
