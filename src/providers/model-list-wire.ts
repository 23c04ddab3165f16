import { z } from "zod";

/** The part of a model list both OpenAI (`GET /models`) and Anthropic (`GET /v1/models`) answer with. */
export const ModelIdsSchema = z.object({ data: z.array(z.object({ id: z.string() })) });
