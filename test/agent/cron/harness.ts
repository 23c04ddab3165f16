/** The cron tool and the job runner on one store, under a manual clock: what a test adds, fires and delivers. */
import { CronJobRunner } from "../../../src/agent/cron/index.ts";
import type { TurnInput, TurnResult } from "../../../src/agent/types.ts";
import type { BackendStorage } from "../../../src/storage/types.ts";
import { createCronTool } from "../../../src/tools/builtins/cron.ts";
import type { ToolContext, ToolResult } from "../../../src/tools/types.ts";
import { captureLogger } from "../../plugins/events/log.ts";
import type { FakeClock } from "../../plugins/cron/fake-clock.ts";

export interface Delivery {
  owner: string;
  session: string;
  chat: string | null;
  text: string;
  at: number;
}

export function cronTool(storage: Pick<BackendStorage, "cronJobs" | "cron">, clock: FakeClock) {
  const tool = createCronTool(() => ({ jobs: storage.cronJobs, state: storage.cron, now: () => clock.now() }));
  return async (args: Record<string, unknown>, session = "telegram:42", chatId = "42"): Promise<ToolResult> => {
    const context: ToolContext = {
      sessionId: session,
      workspace: "/tmp",
      signal: new AbortController().signal,
      origin: { channel: "telegram", chatId, userId: "7" },
    };
    return tool.execute(args, context);
  };
}

/**
 * A runner of the "telegram" channel's jobs whose turns answer "answer to: <message>", recording every delivery and
 * handing it to `send` too (a real Telegram channel's send, when given).
 */
export function telegramRunner(
  storage: Pick<BackendStorage, "cronJobs" | "cron" | "sessions" | "channels">,
  clock: FakeClock,
  owner: string,
  deliveries: Delivery[],
  turns: TurnInput[] = [],
  send?: (chatId: string, text: string) => Promise<unknown>,
) {
  const logger = captureLogger();
  const runner = new CronJobRunner({
    jobs: storage.cronJobs,
    state: storage.cron,
    sessions: storage.sessions,
    inbox: storage.channels,
    runTurn: async (input) => {
      turns.push(input);
      return { text: `answer to: ${input.text}` } as TurnResult;
    },
    accepts: (row) => row.channel === "telegram",
    deliver: async (row, text) => {
      deliveries.push({ owner, session: row.session_id, chat: row.chat_id, text, at: clock.now() });
      await send?.(row.chat_id!, text);
    },
    clock,
    logger,
    owner,
    leaseMs: 3000,
  });
  return { runner, logger };
}

/** Move the clock second by second, letting every runner finish its store calls and runs at each step. */
export async function advance(clock: FakeClock, to: number, runners: CronJobRunner[]): Promise<void> {
  for (let t = clock.now() + 1000; t <= to; t += 1000) {
    await clock.advanceTo(t);
    for (let i = 0; i < 3; i++) await Promise.all(runners.map((r) => r.idle()));
  }
}

export function parsed(result: ToolResult): any {
  if (!result.success) throw new Error(`tool failed: ${result.error}`);
  return JSON.parse(result.output);
}
