/**
 * The IRC channel supervised by the built gateway against a real ngIRCd: an unknown nick's DM gets a pairing code,
 * the approval through the API lets the next DM through, and a restarted process answers what comes after it once.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";
import { ensureBinary, fakeProviderConfig, startGatewayBinary, type RunningGateway } from "../helpers/binary.ts";
import { ircPerson, NGIRCD, startNgircd, type IrcPerson, type Ngircd } from "../helpers/ngircd.ts";
import { waitFor } from "../helpers/wait.ts";
import { tempWorkspace } from "../helpers/workspace.ts";

/** Wait until `probe` answers something other than false, null or undefined. */
const until = <T>(what: string, probe: () => Promise<T>) => waitFor(probe, what);

setDefaultTimeout(60_000);
const enabled = Boolean(NGIRCD || process.env.CI);

let provider: FakeServer;
let server: Ngircd;
let gateway: RunningGateway;
let token = "";
let cleanup = () => {};

async function api(path: string, init: RequestInit = {}): Promise<any> {
  const response = await fetch(`${gateway.url}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" } });
  return response.json();
}
const info = async () => ((await api("/api/channels")).channels as any[]).find((c) => c.name === "irc");

beforeAll(async () => {
  if (!enabled) return;
  await ensureBinary();
  provider = startFakeOpenAI();
  server = await startNgircd();
  const ws = tempWorkspace(fakeProviderConfig(provider.url, `[channels.irc]\nkind = "irc"\nenabled = true\nserver = "127.0.0.1:${server.port}"\ntls = false\nnick = "prxbot"\n`));
  cleanup = ws.cleanup;
  gateway = await startGatewayBinary(ws.dir);
  const paired = await fetch(`${gateway.url}/pair`, { method: "POST", headers: { "x-pairing-code": gateway.code! } });
  token = ((await paired.json()) as { token: string }).token;
  await until("irc running", async () => (await info())?.state === "running" && (await info()).detail.includes("prxbot on"));
}, 120_000);

afterAll(async () => {
  if (!enabled) return;
  gateway.proc.kill("SIGTERM");
  await gateway.proc.exited;
  await server.close();
  await provider.stop();
  cleanup();
});

test.skipIf(!enabled)("irc: pairing, approval through the API, reply, and a restart that answers nothing twice", async () => {
  const eve: IrcPerson = await ircPerson(server.port, "eve");
  try {
    eve.say("prxbot", "hi");
    await eve.waitFor(() => eve.heard("prxbot").some((l) => l.includes("Pairing code:")), "the pairing code");
    const code = /Pairing code: (\S+)/.exec(eve.heard("prxbot").join("\n"))![1]!;
    expect(await api("/api/channels/pairings/approve", { method: "POST", body: JSON.stringify({ code }) })).toMatchObject({ channel: "irc", sender_id: "eve", state: "approved" });
    eve.say("prxbot", "let me in");
    await eve.waitFor(() => eve.heard("prxbot").includes("echo: let me in"), "the reply");
    const restarts = (await info()).restarts;
    await api("/api/channels/irc/restart", { method: "POST" });
    await until("the restarted process", async () => {
      const now = await info();
      return now.restarts > restarts && now.state === "running" && now.detail.includes("prxbot on");
    });
    eve.say("prxbot", "after");
    await eve.waitFor(() => eve.heard("prxbot").includes("echo: after"), "the reply after the restart");
    await Bun.sleep(300);
    expect(eve.heard("prxbot").filter((l) => l.startsWith("echo: "))).toEqual(["echo: let me in", "echo: after"]);
  } finally {
    eve.quit();
  }
});
