/** Bodies of 100,000 nested `[` (200 KB each) posted to every route that takes JSON, while /health is probed. */
import { MAX_JSON_DEPTH } from "../../../src/core/json/index.ts";
import type { Scenario } from "./scenarios.ts";

const LEVELS = 100_000;
const ROUNDS = 100;
const ROUTES = ["/v1/chat/completions", "/api/memory", "/webhook", "/mcp", "/api/sessions/deep/message", "/plugins/hostile/echo"];

export const DEEP_JSON: Scenario = {
  name: `deep JSON (${LEVELS} nested [, ${ROUNDS} rounds over ${ROUTES.length} routes)`,
  plugin: { transport: "worker" },
  async attack({ gw }) {
    const body = "[".repeat(LEVELS) + "]".repeat(LEVELS);
    let refused = 0;
    let slowest = 0;
    for (let round = 0; round < ROUNDS; round++) {
      await Promise.all(
        ROUTES.map(async (path) => {
          const t0 = performance.now();
          const response = await gw.get(path, { method: "POST", headers: { "content-type": "application/json" }, body });
          const text = await response.text();
          slowest = Math.max(slowest, performance.now() - t0);
          if (response.status === 400 && text.includes(`deeper than ${MAX_JSON_DEPTH} levels`)) refused += 1;
        }),
      );
    }
    const total = ROUNDS * ROUTES.length;
    return {
      rows: [
        { name: "requests refused with 400 naming the limit", value: refused, unit: "count", target: { op: ">=", value: total } },
        { name: "slowest answer", value: slowest, unit: "ms" },
      ],
    };
  },
};
