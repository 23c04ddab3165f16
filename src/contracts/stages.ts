/** The four middleware stages of a turn, in the order a turn passes them. */
export const Stages = ["inbound", "llm_request", "llm_response", "outbound"] as const;
export type Stage = (typeof Stages)[number];
