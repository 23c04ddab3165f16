// daily-digest: the hook counts into kv ("n:turns", "n:blocked", "n:errors", "tool:<name>", "session:<id>"), the cron
// job turns the counts into one line of text and starts counting afresh.
import { defineCron, defineHook, kv, log } from "@prx/kit";

function count(key: string): number {
  return Number(kv.get(key) ?? "0");
}

export const hookExports = defineHook({
  onEvent(topic, raw) {
    const payload = raw !== null && typeof raw === "object" ? (raw as Record<string, unknown>) : {};
    if (kv.get("since") === undefined) kv.set("since", new Date().toISOString());
    if (topic.endsWith(".turn_complete")) {
      kv.increment("n:turns");
      if (payload.blocked === true) kv.increment("n:blocked");
      if (typeof payload.session_id === "string") kv.set(`session:${payload.session_id}`, "1");
    } else if (topic.endsWith(".tool_call") && typeof payload.tool === "string") {
      kv.increment(`tool:${payload.tool}`);
    } else if (topic.endsWith(".error")) {
      kv.increment("n:errors");
    }
  },
});

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

export const cronExports = defineCron({
  run() {
    const since = kv.get("since") ?? new Date().toISOString();
    const tools = kv.keys("tool:").map((key) => [key.slice(5), count(key)] as const);
    const calls = tools.reduce((sum, [, n]) => sum + n, 0);
    const perTool = tools.length > 0 ? ` (${tools.map(([name, n]) => `${name} ${n}`).join(", ")})` : "";
    const digest =
      `since ${since}: ${plural(count("n:turns"), "turn")} in ${plural(kv.keys("session:").length, "session")}, ` +
      `${plural(calls, "tool call")}${perTool}, ${plural(count("n:blocked"), "block")}, ${plural(count("n:errors"), "error")}`;
    for (const prefix of ["n:", "tool:", "session:"]) for (const key of kv.keys(prefix)) kv.delete(key);
    kv.set("since", new Date().toISOString());
    log.info(`digest ${digest}`);
    return digest;
  },
});
