import type { Interface } from "node:readline";
import type { ApprovalBroker } from "../agent/approvals/broker.ts";
import type { ApprovalRoute, PendingApproval } from "../agent/approvals/types.ts";
import { errorMessage } from "../core/errors.ts";
import { visible } from "../core/terminal.ts";
import type { ChatOutput } from "./render.ts";

/**
 * The chat's inline approval prompt: while a tool call waits for approval, the next line typed answers it (`y` once,
 * `a` always for this session, anything else refuses) instead of becoming a message. The chat loop reads lines with
 * `for await`, which sees every line too: `consumed(index)` tells it which of them were answers. Once the input has
 * ended (piped stdin), approvals are refused at once.
 */
export class ChatApprovalPrompt {
  private seen = 0;
  private readonly answers = new Set<number>();
  private answering: ((line: string) => void) | null = null;
  /** The input has ended: no line can answer any more, so a waiting or later approval is refused at once. */
  private ended = false;

  constructor(
    rl: Interface,
    private readonly out: ChatOutput,
    private readonly broker: Pick<ApprovalBroker, "decide">,
  ) {
    rl.on("line", (line: string) => {
      const index = this.seen++;
      const answer = this.answering;
      if (!answer) return;
      this.answering = null;
      this.answers.add(index);
      answer(line);
    });
    rl.on("close", () => {
      this.ended = true;
      const answer = this.answering;
      this.answering = null;
      answer?.("");
    });
  }

  /** True when the loop's line number `index` (0-based, in the order lines arrived) answered an approval. */
  consumed(index: number): boolean {
    return this.answers.delete(index);
  }

  /** The route of a chat turn: ask on the terminal, answer through the broker. */
  route(): ApprovalRoute {
    return {
      kind: "ask",
      notify: (pending) => void this.ask(pending),
      settled: (pending, answer) => {
        if (this.answering === null) return;
        this.answering = null;
        this.out.info(answer.decision === "timeout" ? `\nno answer in time: ${pending.tool} was not run` : `\n${pending.tool}: ${answer.decision} (${answer.by})`);
      },
    };
  }

  private async ask(pending: PendingApproval): Promise<void> {
    this.out.spinner.stop();
    this.out.line(`\n  ? ${visible(pending.tool)} ${visible(pending.preview)}\n    run it? [y]es once, [a]lways this session, [n]o: `);
    const line = this.ended ? "" : await new Promise<string>((resolve) => (this.answering = resolve));
    const word = line.trim().toLowerCase();
    const decision = word === "y" || word === "yes" ? "allow" : word === "a" || word === "always" ? "allow_session" : "deny";
    try {
      await this.broker.decide(pending.id, decision, "chat", null);
    } catch (error) {
      this.out.error(errorMessage(error));
    }
    this.out.spinner.start();
  }
}
