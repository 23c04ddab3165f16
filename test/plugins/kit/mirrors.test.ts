/**
 * The guest kit cannot import prx (it runs inside plugins and their tests), so it mirrors two of prx's wire shapes
 * as plain types: the middleware envelopes (src/contracts) and the test sandbox's replies (src/plugins/kit/sandbox/
 * protocol.ts). The type checker holds them equal (`bun run typecheck` compiles this file).
 */
import { expect, test } from "bun:test";
import { EnvelopeSchemas } from "../../../src/contracts/envelope-schemas.ts";
import { Stages, type Envelopes as ContractEnvelopes } from "../../../src/contracts/envelopes.ts";
import type { Envelopes as KitEnvelopes, Stage as KitStage } from "../../../src/plugins/kit/guest/envelopes.ts";
import type {
  LoadedPlugin,
  MiddlewareResult,
  ProviderReply,
  PublishedEvent,
  RecalledMemory,
  ToolCallResult,
} from "../../../src/plugins/kit/guest/harness-types.ts";
import { ENVELOPE_DEFAULTS } from "../../../src/plugins/kit/sandbox/operations.ts";
import type {
  LoadedPluginInfo,
  MiddlewareResultInfo,
  ProviderReplyInfo,
  PublishedEventInfo,
  RecalledMemoryInfo,
  ToolCallResultInfo,
} from "../../../src/plugins/kit/sandbox/protocol.ts";

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

const envelopes: Same<ContractEnvelopes, KitEnvelopes> = true;
const stages: Same<(typeof Stages)[number], KitStage> = true;
const loaded: Same<LoadedPlugin, LoadedPluginInfo> = true;
const tool: Same<ToolCallResult, ToolCallResultInfo> = true;
const provider: Same<ProviderReply, ProviderReplyInfo> = true;
const recalled: Same<RecalledMemory, RecalledMemoryInfo> = true;
const published: Same<PublishedEvent, PublishedEventInfo> = true;
// the kit's result is the protocol's, with the envelope of `continue` typed per stage
type Variant<R, A> = Extract<R, { action: A }>;
const middleware: Same<MiddlewareResult["action"], MiddlewareResultInfo["action"]> &
  Same<Variant<MiddlewareResult, "block">, Variant<MiddlewareResultInfo, "block">> &
  Same<Variant<MiddlewareResult, "failed">, Variant<MiddlewareResultInfo, "failed">> = true;

test("the kit's mirrors agree with prx's shapes", () => {
  expect([envelopes, stages, loaded, tool, provider, recalled, published, middleware].every(Boolean)).toBe(true);
});

test("the envelopes a sandbox fills in for a test are valid envelopes of their stage", () => {
  for (const stage of Stages) expect(EnvelopeSchemas[stage].safeParse(ENVELOPE_DEFAULTS[stage]).success).toBe(true);
});
