import { z } from "zod";
import { PrxError } from "../../core/errors.ts";
import { LifecycleNames, lifecycleTopic } from "../../contracts/lifecycle.ts";
import { EVENT_TOPIC_MAX_BYTES, EVENT_TOPIC_MIN_BYTES } from "./limits.ts";

/**
 * Subscription patterns:
 * - exact: `prx.cron.backup` matches only that topic;
 * - prefix wildcard: a trailing `*` matches every topic starting with what precedes it (`prx.lifecycle.*`);
 * - global: `*` matches everything;
 * - legacy short names: a native lifecycle name (`agent_end`, `llm_request`, ... and `agent_stop`) matches its
 *   bridged topic (`prx.lifecycle.agent_stop`, `prx.lifecycle.llm_request`) as well as itself.
 * A `*` anywhere but at the end is an error.
 */
export type TopicMatcher = (topic: string) => boolean;

const legacyShortNames: ReadonlySet<string> = new Set<string>([...LifecycleNames, "agent_stop"]);

export function isLegacyShortName(name: string): boolean {
  return legacyShortNames.has(name);
}

function checkLength(kind: "topic" | "pattern", value: string): void {
  if (typeof value !== "string") {
    throw new PrxError("BAD_REQUEST", `event ${kind} must be a string, got ${typeof value}`);
  }
  if (value.length * 3 <= EVENT_TOPIC_MAX_BYTES && value.length >= EVENT_TOPIC_MIN_BYTES) return;
  const bytes = Buffer.byteLength(value, "utf8");
  if (bytes < EVENT_TOPIC_MIN_BYTES || bytes > EVENT_TOPIC_MAX_BYTES) {
    throw new PrxError(
      "LIMIT_EXCEEDED",
      `event ${kind} is ${bytes} bytes; it must be ${EVENT_TOPIC_MIN_BYTES}..${EVENT_TOPIC_MAX_BYTES} bytes`,
      { hint: `use a shorter dotted name such as "prx.cron.<plugin>"`, details: { bytes } },
    );
  }
}

/** Throws PrxError when a topic is not 1..256 bytes. */
export function validateTopic(topic: string): void {
  checkLength("topic", topic);
}

/** Throws PrxError for a pattern of bad length or with a `*` that is not the last character. */
export function validatePattern(pattern: string): void {
  checkLength("pattern", pattern);
  const star = pattern.indexOf("*");
  if (star !== -1 && star !== pattern.length - 1) {
    throw new PrxError("BAD_REQUEST", `event pattern "${pattern}" has a "*" that is not at the end`, {
      hint: `wildcards are only allowed as a trailing "*", e.g. "prx.lifecycle.*" or "*"`,
    });
  }
}

export function compilePattern(pattern: string): TopicMatcher {
  validatePattern(pattern);
  if (pattern === "*") return () => true;
  if (pattern.endsWith("*")) {
    const prefix = pattern.slice(0, -1);
    return (topic) => topic.startsWith(prefix);
  }
  if (legacyShortNames.has(pattern)) {
    const bridged = lifecycleTopic(pattern);
    return (topic) => topic === bridged || topic === pattern;
  }
  return (topic) => topic === pattern;
}

export function matchTopic(pattern: string, topic: string): boolean {
  return compilePattern(pattern)(topic);
}

/** True when any of the patterns matches. */
export function compilePatterns(patterns: readonly string[]): TopicMatcher {
  const matchers = patterns.map(compilePattern);
  return (topic) => matchers.some((m) => m(topic));
}

/**
 * Hook manifests declare their events either as `events = ["prx.lifecycle.*", "agent_end"]` or as the table form
 * `[[capabilities.events]] pattern = "..."`; both (and a mix) parse to a list of validated pattern strings.
 */
export const HookEventPatternsSchema = z
  .array(z.union([z.string(), z.object({ pattern: z.string() }).strict()]))
  .transform((items, ctx) => {
    const out: string[] = [];
    items.forEach((item, index) => {
      const pattern = typeof item === "string" ? item : item.pattern;
      try {
        validatePattern(pattern);
        out.push(pattern);
      } catch (error) {
        ctx.addIssue({ code: "custom", path: [index], message: (error as Error).message });
      }
    });
    return out;
  });
export type HookEventPatterns = z.output<typeof HookEventPatternsSchema>;
