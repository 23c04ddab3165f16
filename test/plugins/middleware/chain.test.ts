import { describe, expect, test } from "bun:test";
import { MiddlewareBlock } from "../../../src/contracts/envelopes.ts";
import type { Envelopes, Stage, StageOutput } from "../../../src/contracts/envelopes.ts";
import { MiddlewareChain } from "../../../src/plugins/middleware/index.ts";
import type {
  MiddlewareEntry,
  MiddlewareFailureKind,
  MiddlewareOutcome,
} from "../../../src/plugins/middleware/index.ts";
import { captureLogger } from "../events/log.ts";

const inbound: Envelopes["inbound"] = {
  text: "mail me at a@b.com",
  channel: "cli",
  user_id: null,
  session_id: "s1",
  metadata: {},
};

/** The envelope a stage passed on (fails the test on a block). */
function passed<S extends Stage>(out: StageOutput<S>): Envelopes[S] {
  if (out instanceof MiddlewareBlock) throw new Error(`unexpected block by ${out.plugin}: ${out.reason}`);
  return out;
}

function entry(
  plugin: string,
  name: string,
  priority: number,
  process: (stage: Stage, data: string) => Promise<string>,
  extra: Partial<MiddlewareEntry> = {},
): MiddlewareEntry {
  return { plugin, name, priority, stages: "all", process, ...extra };
}

/** Appends a tag to the text of an envelope that has one. */
function tagger(tag: string, log?: string[]) {
  return async (stage: Stage, data: string) => {
    log?.push(`${tag}:${stage}`);
    const env = JSON.parse(data);
    if (typeof env.text === "string") env.text += tag;
    return JSON.stringify(env);
  };
}

function newChain(entries: MiddlewareEntry[], timeoutMs?: number) {
  const logger = captureLogger();
  const outcomes: { entry: string; outcome: MiddlewareOutcome }[] = [];
  const chain = new MiddlewareChain(entries, {
    logger,
    timeoutMs,
    sink: { onResult: (e, outcome) => outcomes.push({ entry: `${e.plugin}/${e.name}`, outcome }) },
  });
  return { chain, logger, outcomes };
}

describe("MiddlewareChain", () => {
  test("orders by priority, then plugin name, then capability name", async () => {
    const log: string[] = [];
    const { chain } = newChain([
      entry("zeta", "a", 10, tagger("Z", log)),
      entry("beta", "b", 5, tagger("Bb", log)),
      entry("beta", "a", 5, tagger("Ba", log)),
      entry("alpha", "z", 5, tagger("A", log)),
      entry("first", "x", -1, tagger("F", log)),
    ]);
    const out = passed(await chain.run("inbound", inbound));
    expect(out.text).toBe("mail me at a@b.comFABaBbZ");
    expect(chain.entries().map((e) => `${e.plugin}/${e.name}`)).toEqual([
      "first/x",
      "alpha/z",
      "beta/a",
      "beta/b",
      "zeta/a",
    ]);
  });

  test("an entry runs only for its declared stages", async () => {
    const log: string[] = [];
    const { chain } = newChain([
      entry("p", "in", 0, tagger("I", log), { stages: ["inbound"] }),
      entry("p", "out", 0, tagger("O", log), { stages: ["outbound", "llm_response"] }),
    ]);
    await chain.run("inbound", inbound);
    await chain.run("outbound", { text: "hi", channel: "cli", session_id: "s" });
    await chain.run("llm_request", { messages: [], model: "m", temperature: 0, tools: [] });
    expect(log).toEqual(["I:inbound", "O:outbound"]);
    expect(chain.entriesFor("llm_request")).toHaveLength(0);
  });

  test("redaction through all four stages", async () => {
    const redact = (s: string) => s.replace(/[\w.+-]+@[\w-]+\.[\w.]+/g, "[email]");
    const { chain } = newChain([
      entry("redactor", "email", 0, async (_stage, data) =>
        JSON.stringify(JSON.parse(data, (_k, v) => (typeof v === "string" ? redact(v) : v))),
      ),
    ]);
    expect(passed(await chain.run("inbound", inbound)).text).toBe("mail me at [email]");
    const req = passed(
      await chain.run("llm_request", {
        messages: [{ role: "user", content: "to x@y.org" }],
        model: "m",
        temperature: 0.2,
        tools: [],
      }),
    );
    expect(req.messages[0]?.content).toBe("to [email]");
    const res = passed(await chain.run("llm_response", { text: "write a@b.io", tool_calls: [], model: "m", usage: null }));
    expect(res.text).toBe("write [email]");
    const out = passed(await chain.run("outbound", { text: "c@d.net", channel: "cli", session_id: "s" }));
    expect(out.text).toBe("[email]");
  });

  const failures: [string, (stage: Stage, data: string) => Promise<string>, MiddlewareFailureKind][] = [
    ["invalid JSON", async () => "not json {", "invalid_json"],
    ["a non-string reply", async () => ({ text: "x" }) as unknown as string, "invalid_json"],
    ["a structurally invalid envelope", async () => JSON.stringify({ text: 42 }), "invalid_envelope"],
    [
      "a wrong-stage envelope",
      async () => JSON.stringify({ text: "x", channel: "c", session_id: "s" }),
      "invalid_envelope",
    ],
    ["a rejected promise", async () => Promise.reject(new Error("trap: unreachable")), "error"],
    [
      "a synchronous throw",
      (() => {
        throw new Error("sync boom");
      }) as unknown as (stage: Stage, data: string) => Promise<string>,
      "error",
    ],
    ["a timeout", () => new Promise<string>(() => {}), "timeout"],
  ];
  for (const [what, process, kind] of failures) {
    test(`${what} is isolated: the received envelope passes on, later entries still run`, async () => {
      const { chain, logger, outcomes } = newChain([
        entry("a", "before", 0, tagger("1")),
        entry("b", "bad", 1, process, { timeoutMs: 20 }),
        entry("c", "after", 2, tagger("3")),
      ]);
      const out = passed(await chain.run("inbound", inbound));
      expect(out.text).toBe("mail me at a@b.com13");
      const bad = outcomes.find((o) => o.entry === "b/bad")!.outcome;
      expect(bad).toMatchObject({ ok: false, failure: kind, stage: "inbound" });
      expect(outcomes.filter((o) => o.outcome.ok)).toHaveLength(2);
      expect(outcomes.filter((o) => o.entry === "b/bad")).toHaveLength(1);
      expect(logger.records.some((r) => r.level === "warn" && r.fields?.kind === kind)).toBe(true);
    });
  }

  test("the chain-wide timeout applies when an entry sets none", async () => {
    const { chain, outcomes } = newChain([entry("slow", "x", 0, () => new Promise<string>(() => {}))], 15);
    expect(await chain.run("inbound", inbound)).toBe(inbound);
    expect(outcomes[0]?.outcome.failure).toBe("timeout");
    expect(outcomes[0]?.outcome.error).toContain("15 ms");
  });

  test("each entry is told its own outcomes; a throwing entry report or sink does not break the turn", async () => {
    const told: string[] = [];
    const reported = entry("q", "y", 1, () => Promise.reject(new Error("nope")));
    reported.report = (e, outcome) => told.push(`${e.plugin}/${e.name}:${outcome.failure}`);
    const { chain } = newChain([entry("p", "x", 0, tagger("!")), reported]);
    expect(passed(await chain.run("inbound", inbound)).text).toBe("mail me at a@b.com!");
    expect(told).toEqual(["q/y:error"]);
    reported.report = () => {
      throw new Error("report down");
    };
    expect(passed(await chain.run("inbound", inbound)).text).toBe("mail me at a@b.com!");
  });

  test("a throwing status sink does not break the turn", async () => {
    const logger = captureLogger();
    const chain = new MiddlewareChain([entry("p", "x", 0, tagger("!"))], {
      logger,
      sink: {
        onResult: () => {
          throw new Error("sink down");
        },
      },
    });
    expect(passed(await chain.run("inbound", inbound)).text).toBe("mail me at a@b.com!");
    expect(logger.records.some((r) => r.message === "middleware status sink failed")).toBe(true);
  });

  test("a reply identical to its input passes the envelope on as it was, counted as a success", async () => {
    const seen: string[] = [];
    const passthrough = async (_stage: Stage, data: string) => {
      seen.push(data);
      return data;
    };
    const { chain, outcomes } = newChain([entry("a", "one", 1, passthrough), entry("b", "two", 2, passthrough)]);
    expect(await chain.run("inbound", inbound)).toBe(inbound);
    expect(seen).toEqual([JSON.stringify(inbound), JSON.stringify(inbound)]);
    expect(outcomes.map((o) => o.outcome.ok)).toEqual([true, true]);
  });

  test("a changed reply is validated and the next entry gets its JSON", async () => {
    const seen: string[] = [];
    const record = async (_stage: Stage, data: string) => {
      seen.push(data);
      return data;
    };
    const { chain } = newChain([entry("a", "tag", 1, tagger("!")), entry("b", "rec", 2, record)]);
    const out = passed(await chain.run("inbound", inbound));
    expect(out.text).toBe("mail me at a@b.com!");
    expect(JSON.parse(seen[0]!)).toEqual(out);
  });

  test("a plain reply travels on as its own text; keys the schema strips never reach the next entry", async () => {
    const seen: string[] = [];
    const record = async (_stage: Stage, data: string) => {
      seen.push(data);
      return data;
    };
    const pretty = async (_stage: Stage, data: string) => JSON.stringify({ ...JSON.parse(data), text: "x" }, null, 2);
    const extra = async (_stage: Stage, data: string) => JSON.stringify({ ...JSON.parse(data), text: "y", junk: 1 });
    const first = newChain([entry("a", "pretty", 1, pretty), entry("b", "rec", 2, record)]);
    const out = passed(await first.chain.run("inbound", inbound));
    expect(out).toEqual({ ...inbound, text: "x" });
    expect(seen[0]).toBe(JSON.stringify({ ...inbound, text: "x" }, null, 2));
    const second = newChain([entry("a", "extra", 1, extra), entry("b", "rec", 2, record)]);
    const stripped = passed(await second.chain.run("inbound", inbound));
    expect(stripped).toEqual({ ...inbound, text: "y" });
    expect(JSON.parse(seen[1]!)).toEqual({ ...inbound, text: "y" });
  });

  for (const [how, process] of [
    ["replied", async () => JSON.stringify({ action: "block", reason: "too many messages" })],
    ["thrown", async () => Promise.reject(new Error(JSON.stringify({ action: "block", reason: "too many messages" })))],
  ] as const) {
    test(`a block (${how}) ends the stage: later entries do not run, the block carries what its entry received`, async () => {
      const log: string[] = [];
      const { chain, outcomes } = newChain([
        entry("a", "tag", 1, tagger("1", log)),
        entry("limiter", "rate", 2, process),
        entry("c", "after", 3, tagger("3", log)),
      ]);
      const out = await chain.run("inbound", inbound);
      expect(out).toBeInstanceOf(MiddlewareBlock);
      const block = out as MiddlewareBlock<"inbound">;
      expect([block.plugin, block.capability, block.stage, block.reason]).toEqual(["limiter", "rate", "inbound", "too many messages"]);
      expect(block.envelope.text).toBe("mail me at a@b.com1");
      expect(log).toEqual(["1:inbound"]);
      expect(outcomes.map((o) => [o.entry, o.outcome.ok, o.outcome.block ?? null])).toEqual([
        ["a/tag", true, null],
        ["limiter/rate", true, "too many messages"],
      ]);
    });
  }

  test("an empty chain returns the same envelope", async () => {
    const { chain } = newChain([]);
    expect(await chain.run("inbound", inbound)).toBe(inbound);
  });
});
