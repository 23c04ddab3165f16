/**
 * The elizaOS model types the host serves to every remote plugin through useModel: text types by the configured
 * provider (the value says which size of model elizaOS means), and TEXT_EMBEDDING by its embeddings.
 */
export const HOST_TEXT_MODELS: Readonly<Record<string, "small" | "large">> = {
  TEXT_SMALL: "small",
  TEXT_LARGE: "large",
  TEXT_REASONING_SMALL: "small",
  TEXT_REASONING_LARGE: "large",
  TEXT_COMPLETION: "large",
};

export const EMBEDDING_MODEL = "TEXT_EMBEDDING";
