/**
 * Early refusal: an upload is checked against the skill's input schema when it arrives, before the job is queued,
 * so a client learns at once which field and which file is wrong (it used to be accepted with 202 and the job
 * failed later). Both zip layouts are accepted: files at the top, or under `uploads/`; a zip that mixes them is
 * refused. Real HTTP on loopback, real zips (crafted byte by byte), the fixture skill `word-count` whose file
 * input `text_file` declares `extensions: [".txt", ".md"]`.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "@skillrig/server";
import { craftZip } from "./support/craft-zip.js";
import { api, makeProject, startInProcess, waitForStatus, type Api } from "./support/server-harness.js";

/** The first bytes of a real PNG (signature and IHDR chunk): what file-type recognises as image/png. */
const PNG = Buffer.from(
  "89504e470d0a1a0a0000000d4948445200000001000000010806000000" +
    "1f15c4890000000d49444154789c63000100000500010d0a2db40000000049454e44ae426082",
  "hex",
);

describe("uploads are checked against the skill's schema when they arrive", () => {
  let server: RunningServer;
  let client: Api;

  beforeAll(async () => {
    server = await startInProcess(makeProject());
    client = api(server.url);
  });
  afterAll(async () => {
    await server?.close();
  });

  const waitingJob = async (): Promise<string> => {
    const created = await client.json("POST", "/v1/jobs", { skill_id: "word-count", engine: "echo", input: { label: "x" } });
    expect(created.body.status).toBe("waiting_upload");
    return created.body.id;
  };

  const expectStillWaiting = async (id: string) => {
    expect((await client.json("GET", `/v1/jobs/${id}`)).body.status).toBe("waiting_upload");
    expect(existsSync(join(server.settings.dataDir, "runs", id))).toBe(false);
  };

  it("a PNG into a text field: 422 input_invalid naming the field and the file, the job not queued (verdict: refused)", async () => {
    const id = await waitingJob();
    const res = await client.upload(`/v1/jobs/${id}/upload`, craftZip([{ name: "text_file", data: PNG }]));
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: "input_invalid", field: "text_file", file: "text_file", pointer: "/input/text_file" });
    expect(res.body.error.violations).toEqual([
      expect.objectContaining({ field: "text_file", file: "text_file", rule: "extensions", message: expect.stringContaining("image/png") }),
    ]);
    expect(res.body.error.message).toContain('file input "text_file"');
    await expectStillWaiting(id);
    // The same job takes a good upload afterwards.
    const good = await client.upload(`/v1/jobs/${id}/upload`, craftZip([{ name: "text_file", data: "one two" }]));
    expect(good.status).toBe(202);
    await waitForStatus(client, id, ["succeeded"]);
  });

  it("binary bytes that are no known format into a text-only field: 422 (verdict: refused, not UTF-8 text)", async () => {
    const id = await waitingJob();
    const res = await client.upload(
      `/v1/jobs/${id}/upload`,
      craftZip([{ name: "uploads/text_file", data: Buffer.from([0, 1, 2, 0xff, 0xfe, 0]) }]),
    );
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: "input_invalid", field: "text_file", file: "uploads/text_file" });
    expect(res.body.error.message).toMatch(/not UTF-8 text/);
    await expectStillWaiting(id);
  });

  it("files under uploads/ (the run folder's layout) are accepted like files at the top (verdict: 202, runs)", async () => {
    const id = await waitingJob();
    const res = await client.upload(
      `/v1/jobs/${id}/upload`,
      craftZip([{ name: "uploads/" }, { name: "uploads/text_file", data: "one two three", deflate: true }]),
    );
    expect(res.status).toBe(202);
    expect(res.body.files).toEqual([{ path: "text_file", entry: "uploads/text_file", bytes: 13 }]);
    const job = await waitForStatus(client, id, ["succeeded", "failed"]);
    expect(job.status).toBe("succeeded");
    expect((await client.json("GET", `/v1/jobs/${id}/result`)).body.output.words).toBe(3);
    expect(readFileSync(join(server.settings.dataDir, "runs", id, "uploads", "text_file"), "utf8")).toBe("one two three");
  });

  it("a zip mixing both layouts: 422 saying so, naming the files of each (verdict: refused)", async () => {
    const id = await waitingJob();
    const res = await client.upload(
      `/v1/jobs/${id}/upload`,
      craftZip([
        { name: "text_file", data: "a" },
        { name: "uploads/text_file", data: "b" },
      ]),
    );
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe("input_invalid");
    expect(res.body.error.message).toMatch(/mixes two layouts.*text_file.*uploads\/text_file/);
    expect(res.body.error.violations.map((v: { file: string }) => v.file).sort()).toEqual(["text_file", "uploads/text_file"]);
    await expectStillWaiting(id);
  });

  it("under uploads/, a name that is no file input: 422 naming the field and the zip entry (verdict: refused)", async () => {
    const id = await waitingJob();
    const res = await client.upload(
      `/v1/jobs/${id}/upload`,
      craftZip([
        { name: "uploads/text_file", data: "a" },
        { name: "uploads/label", data: "b" },
      ]),
    );
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe("input_invalid");
    expect(res.body.error.violations).toEqual([expect.objectContaining({ field: "label", file: "uploads/label" })]);
    await expectStillWaiting(id);
  });
});
