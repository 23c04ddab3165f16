import { z } from "zod";

/**
 * The search backends' answers as their APIs document them, only the fields web_search reads (others pass).
 * SearXNG: GET {url}/search?q=...&format=json. Brave: GET /res/v1/web/search?q=...&count=N.
 */
export const SearxngAnswer = z.object({
  query: z.string().optional(),
  results: z.array(z.object({ url: z.string(), title: z.string().default(""), content: z.string().nullish() })),
});

export const BraveAnswer = z.object({
  web: z
    .object({ results: z.array(z.object({ url: z.string(), title: z.string().default(""), description: z.string().nullish() })) })
    .optional(),
});
