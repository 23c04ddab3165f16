/**
 * Files of a Teams reply through the built gateway (a supervised channel process; activities and the user's consent
 * arrive at /channels/<name>/webhook): the image arrives inline as a data URI, the other file as a FileConsentCard;
 * accepted, its bytes are PUT to the upload URL Teams gave and a FileInfoCard shows it, as Microsoft documents
 * (test/fakes/teams-server.ts). A link to secrets.env sends nothing.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";
import { startFakeTeams, type FakeTeams } from "../fakes/teams-server.ts";
import { ensureBinary, fakeProviderConfig, startGatewayBinary, type RunningGateway } from "../helpers/binary.ts";
import { gatewayChannels } from "../helpers/gateway-channels.ts";
import { PNG } from "../helpers/tiny-png.ts";
import { waitFor } from "../helpers/wait.ts";
import { tempWorkspace } from "../helpers/workspace.ts";

setDefaultTimeout(60_000);

let provider: FakeServer;
let ms: FakeTeams;
let gateway: RunningGateway;
let token = "";
let cleanup = () => {};
let dir = "";
const { running } = gatewayChannels(() => ({ url: gateway.url, token }));
const CONSENT = "application/vnd.microsoft.teams.card.file.consent";
const INFO = "application/vnd.microsoft.teams.card.file.info";

beforeAll(async () => {
  await ensureBinary();
  provider = startFakeOpenAI();
  ms = await startFakeTeams();
  const ws = tempWorkspace(
    fakeProviderConfig(
      provider.url,
      `[reliability]\nretries = 0\n[memory]\nauto_recall = false\n` +
        `[channels.ms]\nkind = "teams"\nenabled = true\napp_id = "${ms.appId}"\nsecret_env = "TEAMS_PW"\ndm_policy = "open"\n` +
        `openid_url = "${ms.url}/v1/.well-known/openidconfiguration"\ntoken_url = "${ms.url}/botframework.com/oauth2/v2.0/token"\n`,
    ),
  );
  cleanup = ws.cleanup;
  dir = ws.dir;
  writeFileSync(join(dir, "chart.png"), PNG);
  writeFileSync(join(dir, "report.csv"), "a,b\n1,2\n");
  writeFileSync(join(dir, "secrets.env"), "KEY=never\n", { mode: 0o600 });
  gateway = await startGatewayBinary(dir, { TEAMS_PW: ms.password });
  const paired = await fetch(`${gateway.url}/pair`, { method: "POST", headers: { "x-pairing-code": gateway.code! } });
  token = ((await paired.json()) as { token: string }).token;
  await running("ms");
}, 120_000);

afterAll(async () => {
  gateway.proc.kill("SIGTERM");
  await gateway.proc.exited;
  await ms.stop();
  await provider.stop();
  cleanup();
});

test("teams (binary): the image inline, the file by consent card; accepted, it is uploaded and shown as a file card", async () => {
  const hook = `${gateway.url}/channels/ms/webhook`;
  provider.enqueue({ type: "text", text: "Here: ![chart](chart.png) and [the data](report.csv); keys: [k](secrets.env)" });
  const asked = ms.activity({ from: "29:e2e", text: "the chart and the data" });
  expect((await ms.deliver(hook, asked)).status).toBe(200);
  const messages = () => ms.sent.filter((s) => s.type === "message");
  const card = (type: string) => messages().find((m) => m.attachments?.some((a) => a.contentType === type));
  await waitFor(() => card(CONSENT), "the consent card", 20_000);

  const [text, image, consent] = messages();
  expect(text).toMatchObject({ replyTo: asked.id, text: "Here: ![chart](chart.png) and [the data](report.csv); keys: [k](secrets.env)" });
  expect(image).toMatchObject({ replyTo: asked.id, attachments: [{ contentType: "image/png", contentUrl: `data:image/png;base64,${Buffer.from(PNG).toString("base64")}`, name: "chart.png" }] });
  expect(consent).toMatchObject({ replyTo: asked.id, attachments: [{ contentType: CONSENT, name: "report.csv", content: { sizeInBytes: 8 } }] });

  const invoke = ms.consent(consent!.attachments![0]!, "accept", consent!.conversation, consent!.id);
  expect((await ms.deliver(hook, invoke)).status).toBe(200);
  await waitFor(() => card(INFO), "the file info card", 20_000);
  expect(ms.uploads.map((u) => [u.name, u.contentRange, new TextDecoder().decode(u.bytes)])).toEqual([["report.csv", "bytes 0-7/8", "a,b\n1,2\n"]]);
  const info = (invoke.value as { uploadInfo: { contentUrl: string; uniqueId: string } }).uploadInfo;
  expect(card(INFO)!.attachments).toEqual([{ contentType: INFO, contentUrl: info.contentUrl, name: "report.csv", content: { uniqueId: info.uniqueId, fileType: "csv" } }]);
  // secrets.env stayed a link: nothing else was sent
  expect(messages().map((m) => m.text ?? m.attachments!.map((a) => a.name).join())).toEqual([text!.text!, "chart.png", "report.csv", "report.csv"]);
});
