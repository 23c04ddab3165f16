import { api, json, tokens, whenUnauthorized } from "./api.ts";
import { auditView } from "./audit.ts";
import { channelsView } from "./channels.ts";
import { chatView } from "./chat.ts";
import { configView } from "./config.ts";
import { configBanner } from "./config-banner.ts";
import { cronJobsView } from "./cron-jobs.ts";
import { h } from "./dom.ts";
import { stopLive } from "./live.ts";
import { logsView } from "./logs.ts";
import { mcpView } from "./mcp.ts";
import { memoryView } from "./memory.ts";
import { pairingView } from "./pairing.ts";
import { pluginsView } from "./plugins.ts";
import { signIn } from "./signin.ts";
import { skillsView } from "./skills.ts";
import { agentsView } from "./agents.ts";
import { statusView } from "./status.ts";
import { usagePage } from "./usage-page.ts";

type View = { el: HTMLElement; dispose(): void; focusSearch?(): void; newSession?(): void };
/** The views in the order of the tabs; `key` switches to it from anywhere but a text field. */
const VIEWS: Record<string, { label: string; key?: string; make: () => View }> = {
  chat: { label: "Chat", key: "1", make: chatView },
  plugins: { label: "Plugins", key: "2", make: pluginsView },
  status: { label: "Status", key: "3", make: statusView },
  config: { label: "Config", key: "4", make: configView },
  skills: { label: "Skills", key: "5", make: skillsView },
  approvals: { label: "Approvals", key: "6", make: auditView },
  memory: { label: "Memory", key: "7", make: memoryView },
  logs: { label: "Logs", key: "8", make: logsView },
  channels: { label: "Channels", key: "9", make: channelsView },
  pairing: { label: "Pairing", key: "0", make: pairingView },
  mcp: { label: "MCP", make: mcpView },
  usage: { label: "Usage", make: usagePage },
  agents: { label: "Agents", make: agentsView },
  cron: { label: "Scheduled", make: cronJobsView },
};

const root = document.getElementById("app")!;
let current: View | null = null;
let banner: { el: HTMLElement; dispose(): void } | null = null;

function routeName(): string {
  const name = location.hash.replace(/^#\/?/, "");
  return name in VIEWS ? name : "chat";
}

async function signOut(): Promise<void> {
  try {
    await api("/api/auth/token", json("DELETE"));
  } finally {
    tokens.clear();
    show();
  }
}

function help(): HTMLDialogElement {
  const keys = [...Object.values(VIEWS).filter((v) => v.key).map((v) => [v.key, v.label]), ["/", "search (sessions, memory)"], ["n", "new session"], ["Esc", "stop the reply"], ["?", "this help"]];
  const dialog = h("dialog", { class: "help", "data-testid": "help" }, h("h3", {}, "Keyboard"), h("dl", {}, ...keys.flatMap(([k, v]) => [h("dt", {}, h("kbd", {}, k!)), h("dd", {}, v!)])), h("form", { method: "dialog" }, h("button", {}, "Close")));
  return dialog;
}

function shell(): void {
  current?.dispose();
  banner?.dispose();
  banner = configBanner();
  const name = routeName();
  const view = VIEWS[name]!.make();
  current = view;
  const nav = h("nav", { class: "tabs", "aria-label": "views" }, ...Object.entries(VIEWS).map(([id, v]) =>
    h("a", { href: `#/${id}`, class: id === name ? "active" : "", "aria-current": id === name ? "page" : null, title: v.key ? `${v.label} (${v.key})` : v.label, "data-testid": `nav-${id}` }, v.label)));
  const dialog = help();
  root.replaceChildren(
    h("header", { class: "top" }, h("span", { class: "brand" }, "prx"), nav,
      h("span", { class: "spacer" }),
      h("button", { class: "icon", title: "Keyboard shortcuts (?)", "aria-label": "keyboard shortcuts", onclick: () => dialog.showModal() }, "?"),
      h("button", { class: "small", onclick: () => void signOut(), "data-testid": "sign-out" }, "Sign out")),
    banner.el,
    h("main", {}, view.el),
    dialog,
  );
  // on a narrow screen the tabs scroll sideways: keep the open one in sight
  nav.querySelector(".active")?.scrollIntoView({ block: "nearest", inline: "nearest" });
}

function show(): void {
  current?.dispose();
  current = null;
  banner?.dispose();
  banner = null;
  stopLive();
  if (!tokens.get()) {
    root.replaceChildren(h("main", { class: "center" }, signIn(show)));
    return;
  }
  shell();
}

function typing(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  return !!el && (el.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(el.tagName));
}

document.addEventListener("keydown", (e) => {
  if (e.ctrlKey || e.metaKey || e.altKey || typing(e.target) || !tokens.get()) return;
  const view = Object.entries(VIEWS).find(([, v]) => v.key === e.key);
  if (view) {
    location.hash = `#/${view[0]}`;
    e.preventDefault();
  } else if (e.key === "/" && current?.focusSearch) {
    current.focusSearch();
    e.preventDefault();
  } else if (e.key === "n" && current?.newSession) {
    current.newSession();
    e.preventDefault();
  } else if (e.key === "?") {
    root.querySelector<HTMLDialogElement>("dialog.help")?.showModal();
  }
});

window.addEventListener("hashchange", () => tokens.get() && shell());
whenUnauthorized(() => {
  tokens.clear();
  show();
});
show();
