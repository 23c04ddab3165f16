/** The gateway's channel API as binary tests of supervised channels use it: status, restart, pairing approval. */
import { expect } from "bun:test";
import { waitFor } from "./wait.ts";

export interface GatewayChannels {
  /** A call of the gateway's API with the paired token; its JSON answer. */
  api(path: string, init?: RequestInit): Promise<any>;
  /** The channel's row of /api/channels. */
  channel(name: string): Promise<any>;
  /** Running with its agent host open: the state says running and it has reported its counters. */
  running(name: string): Promise<any>;
  /** Restart through the API and wait until the new process runs. */
  restart(name: string): Promise<void>;
  /** Approve the pairing code in `text` (a pairing notice) and check whom it let in. */
  approve(text: string | undefined, channel: string, sender: string): Promise<void>;
}

/** `session` gives the running gateway's URL and a paired token (read at each call: they are set in beforeAll). */
export function gatewayChannels(session: () => { url: string; token: string }): GatewayChannels {
  const until = <T>(what: string, probe: () => Promise<T>) => waitFor(probe, what);
  const self: GatewayChannels = {
    async api(path, init = {}) {
      const { url, token } = session();
      const response = await fetch(`${url}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...init.headers } });
      return response.json();
    },
    async channel(name) {
      const { channels } = await self.api("/api/channels");
      return channels.find((c: { name: string }) => c.name === name);
    },
    running: (name) =>
      until(`${name} running`, async () => {
        const info = await self.channel(name);
        return info?.state === "running" && info.stats !== null && info;
      }),
    async restart(name) {
      const restarts = (await self.channel(name)).restarts;
      await self.api(`/api/channels/${name}/restart`, { method: "POST" });
      await until(`the restarted ${name}`, async () => {
        const info = await self.channel(name);
        return info.restarts > restarts && info.state === "running" && info.stats !== null && info;
      });
    },
    async approve(text, channel, sender) {
      const code = /Pairing code: (\S+)/.exec(text ?? "")?.[1];
      expect(code).toBeDefined();
      const approved = await self.api("/api/channels/pairings/approve", { method: "POST", body: JSON.stringify({ code }) });
      expect(approved).toMatchObject({ channel, sender_id: sender, state: "approved" });
    },
  };
  return self;
}
