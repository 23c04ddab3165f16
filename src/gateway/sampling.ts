import type { AnswerFormat, TurnSampling } from "../agent/types.ts";

/** An API request's temperature, longest answer and answer format as the turn's sampling; undefined when it sets none. */
export function sampling(
  temperature: number | null | undefined,
  maxTokens: number | null | undefined,
  format: AnswerFormat | undefined,
): TurnSampling | undefined {
  const chosen: TurnSampling = {
    ...(temperature != null ? { temperature } : {}),
    ...(maxTokens != null ? { maxTokens } : {}),
    ...(format ? { format } : {}),
  };
  return Object.keys(chosen).length > 0 ? chosen : undefined;
}
