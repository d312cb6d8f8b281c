/**
 * Writes zip archives byte by byte, including the malicious ones no well-behaved zip library would produce
 * (`..` entries, absolute paths, symlinks, sizes that lie), so the upload checks are tested against real bytes.
 */
import { crc32, deflateRawSync } from "node:zlib";
import yauzl from "yauzl";

export interface CraftedEntry {
  name: string;
  data?: Buffer | string;
  /** Unix mode, e.g. 0o120777 for a symlink (its data is the link target). Default 0o100644. */
  mode?: number;
  /** Deflate the data (default: store). */
  deflate?: boolean;
  /** Claim this uncompressed size instead of the real one (a lying zip bomb). */
  declaredSize?: number;
}

export function craftZip(entries: CraftedEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const data = Buffer.isBuffer(entry.data) ? entry.data : Buffer.from(entry.data ?? "");
    const body = entry.deflate ? deflateRawSync(data) : data;
    const name = Buffer.from(entry.name, "utf8");
    const crc = crc32(data);
    const size = entry.declaredSize ?? data.length;
    const method = entry.deflate ? 8 : 0;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt16LE(0, 10);
    local.writeUInt16LE(0x21, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    locals.push(local, name, body);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4); // made by Unix, so the external attributes carry the mode
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt16LE(0, 12);
    central.writeUInt16LE(0x21, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(((entry.mode ?? 0o100644) << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);
    offset += local.length + name.length + body.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

/** Every entry of a zip (a bundle the server sent) with its text, read with yauzl. */
export function zipEntries(zip: Buffer): Promise<Record<string, string>> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(zip, { lazyEntries: true }, (error, file) => {
      if (error || !file) return reject(error);
      const out: Record<string, string> = {};
      file.on("entry", (entry: yauzl.Entry) => {
        file.openReadStream(entry, (e, stream) => {
          if (e || !stream) return reject(e);
          const chunks: Buffer[] = [];
          stream.on("data", (c: Buffer) => chunks.push(c));
          stream.on("end", () => {
            out[entry.fileName] = Buffer.concat(chunks).toString("utf8");
            file.readEntry();
          });
        });
      });
      file.on("end", () => resolve(out));
      file.readEntry();
    });
  });
}
