import { api, json } from "./api.ts";
import { badge, h, time } from "./dom.ts";
import { errorBox } from "./error-box.ts";
import { onSnapshot, type Channel } from "./live.ts";
import { outcomeLine } from "./outcome.ts";

function tone(state: string): "ok" | "warn" | "bad" {
  return state === "running" ? "ok" : state === "crash_loop" || state === "stopped" ? "bad" : "warn";
}

function channelCard(channel: Channel, restart: (name: string) => void): HTMLElement {
  const s = channel.stats;
  return h(
    "article",
    { class: "card item", "data-channel": channel.name, "data-testid": "channel" },
    h("header", {},
      h("h3", {}, channel.name),
      badge(channel.kind),
      badge(channel.state, tone(channel.state)),
      h("button", { class: "small", "data-testid": "channel-restart", "aria-label": `restart ${channel.name}`, onclick: () => restart(channel.name) }, "Restart")),
    channel.detail ? h("p", { class: "muted small" }, channel.detail) : "",
    h("dl", { class: "counters" },
      h("dt", {}, "pid"), h("dd", {}, String(channel.pid ?? "—")),
      h("dt", {}, "restarts"), h("dd", {}, String(channel.restarts)),
      h("dt", {}, "last inbound"), h("dd", {}, time(channel.last_inbound)),
      h("dt", {}, "last outbound"), h("dd", {}, time(channel.last_outbound)),
      s ? h("dt", {}, "messages") : "",
      s ? h("dd", {}, `${s.inbound} in · ${s.answered} answered · ${s.failed} failed · ${s.refused} refused · ${s.ignored} ignored · ${s.duplicates} duplicates`) : ""),
    channel.last_error
      ? h("div", { class: "error", "data-testid": "channel-error" }, channel.last_error, channel.last_error_at ? h("div", { class: "small muted" }, time(channel.last_error_at)) : "")
      : "",
  );
}

/** Channels: each channel process's state, counters and last error, with a restart; live over the status stream. */
export function channelsView(): { el: HTMLElement; dispose(): void } {
  const list = h("div", { "data-testid": "channels" }, h("p", { class: "muted" }, "loading…"));
  const render = (channels: Channel[]) => {
    list.replaceChildren(...channels.map((c) => channelCard(c, (name) => void restart(name))));
    if (channels.length === 0) list.append(h("p", { class: "muted" }, "No channel is enabled: set enabled = true in a [channels.<name>] table of config.toml."));
  };
  const refresh = async () => {
    try {
      render((await api<{ channels: Channel[] }>("/api/channels")).channels);
    } catch (error) {
      list.replaceChildren(errorBox(error));
    }
  };
  const outcome = outcomeLine("channel-outcome", refresh);
  const restart = (name: string) =>
    outcome.run(`restarting ${name}…`, async () => `${name}: ${(await api<Channel>(`/api/channels/${encodeURIComponent(name)}/restart`, json("POST"))).state}`);
  const stop = onSnapshot((snapshot) => snapshot.channels && render(snapshot.channels.channels));
  void refresh();
  const el = h(
    "section",
    { class: "page", "data-testid": "channels-view" },
    h("header", { class: "page-head" }, h("h2", {}, "Channels"), h("a", { href: "#/pairing" }, "Pairing requests and approved senders")),
    outcome.el,
    list,
  );
  return { el, dispose: stop };
}
