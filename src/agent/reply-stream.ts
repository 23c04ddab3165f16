import type { StreamDelta } from "../providers/types.ts";
import { safely } from "./observer.ts";
import type { TurnObserver } from "./types.ts";

/**
 * The text deltas of the model call in progress. They reach the observer as they come when `live` (no middleware has
 * to see the text first), and are kept so that a call failing mid-stream leaves its partial answer in the session.
 */
export class ReplyStream {
  /** What the call in progress streamed so far ("" between calls). */
  partial = "";
  /** Whether the last call's text reached the observer already (else the final text is delivered whole). */
  shown = false;

  /**
   * Whether a model call asks for deltas at all: they matter to an observer, and to a stored session (it keeps the
   * partial answer of a failed stream). A stateless turn with no observer (the gateway's JSON chat completion) asks
   * for one whole response: fewer bytes, packets and parses per turn.
   */
  readonly wanted: boolean;
  private readonly live: boolean;

  /** `live`: no middleware has to see the text first; `stored`: the turn writes its session. */
  constructor(
    private readonly observer: TurnObserver,
    options: { live: boolean; stored: boolean },
  ) {
    this.live = options.live;
    this.wanted = observer.onDelta !== undefined || options.stored;
  }

  begin(): void {
    this.partial = "";
    this.shown = false;
  }

  end(): void {
    this.partial = "";
  }

  readonly onDelta = (delta: StreamDelta): void => {
    if (delta.type !== "text") return;
    this.partial += delta.text;
    if (!this.live) return;
    this.shown = true;
    safely(() => this.observer.onDelta?.(delta.text));
  };
}
