import type { ToolsConfig } from "../../config/schema.ts";
import { errorMessage } from "../../core/errors.ts";
import { outboundFetch, type OutboundResponse } from "../../core/outbound/index.ts";
import { WEB_FETCH_DEFAULT_CHARS } from "../limits.ts";
import { fail, ok } from "../result.ts";
import type { ToolContext, ToolResult } from "../types.ts";
import { toolOutboundPolicy } from "./outbound-policy.ts";
import type { WebFetchArgs } from "./schemas.ts";

/** What web_fetch does once called (web-fetch.ts declares it; this loads with the first call). */

type Kind = "html" | "text" | "json";

/** How a content type is read: HTML to Markdown-like text, text and JSON as they are; anything else is refused. */
export function kindOf(contentType: string | null): Kind | undefined {
  const type = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
  if (type === "text/html" || type === "application/xhtml+xml") return "html";
  if (type === "application/json" || type.endsWith("+json")) return "json";
  if (type.startsWith("text/")) return "text";
  // no declared type: read as text only if it decodes as such (checked by the caller)
  if (type === "") return "text";
  return undefined;
}

function decode(bytes: Uint8Array, contentType: string | null): string {
  const charset = /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType ?? "")?.[1];
  try {
    return new TextDecoder((charset ?? "utf-8") as ConstructorParameters<typeof TextDecoder>[0]).decode(bytes);
  } catch {
    // an unknown charset label: UTF-8 is the web's default
    return new TextDecoder().decode(bytes);
  }
}

/** Markdown links and images made absolute against the page's URL, so the model can follow them. */
function absoluteLinks(markdown: string, page: string): string {
  return markdown.replace(/\]\(([^)\s]+)\)/g, (whole, href: string) => {
    try {
      return `](${new URL(href, page).href})`;
    } catch {
      // not a URL even relative to the page: left as written
      return whole;
    }
  });
}

/** HTML as Markdown-like text (title, headings, paragraphs, links, lists, tables; scripts and styles dropped). */
async function htmlToText(html: string): Promise<{ title: string | undefined; text: string }> {
  const { NodeHtmlMarkdown } = await import("node-html-markdown");
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1];
  const converter = new NodeHtmlMarkdown({ maxConsecutiveNewlines: 2, ignore: ["script", "style", "noscript", "template", "svg", "iframe", "head"] });
  const text = converter.translate(html).trim();
  return { title: title === undefined ? undefined : converter.translate(title).replace(/\s+/g, " ").trim() || undefined, text };
}

function isBinary(text: string): boolean {
  return text.includes("\u0000");
}

/** The page as the model reads it: a header (final URL, title) and the text, cut at max_chars. */
export async function readable(response: OutboundResponse, maxChars: number): Promise<{ text: string } | { refused: string }> {
  const contentType = response.headers.get("content-type");
  const kind = kindOf(contentType);
  if (kind === undefined) {
    const type = contentType?.split(";")[0]?.trim();
    return {
      refused:
        type === "application/pdf"
          ? "PDF pages are not read by web_fetch; find an HTML version of the document"
          : `content type ${type} is not read by web_fetch (it reads HTML, text and JSON)`,
    };
  }
  const raw = decode(response.bytes, contentType);
  if (isBinary(raw)) return { refused: "the answer is binary, not text; web_fetch reads HTML, text and JSON" };
  let title: string | undefined;
  let body: string;
  if (kind === "html") {
    ({ title, text: body } = await htmlToText(raw));
    body = absoluteLinks(body, response.url);
  }
  else if (kind === "json") body = prettyJson(raw);
  else body = raw;
  const head = [`URL: ${response.url}`, ...(title ? [`Title: ${title}`] : [])];
  const cut = body.length > maxChars;
  const notes = [
    ...(cut ? [`[cut at ${maxChars} of ${body.length} characters; ask again with a larger max_chars to read more]`] : []),
    ...(response.truncated ? ["[the page was larger than tools.http_max_response_bytes and was read only that far]"] : []),
  ];
  return { text: [...head, "", cut ? body.slice(0, maxChars) : body, ...(notes.length > 0 ? ["", ...notes] : [])].join("\n") };
}

function prettyJson(raw: string): string {
  try {
    return JSON.stringify(JSON.parse(raw), null, 2);
  } catch {
    // not valid JSON after all (or cut short): the text as it came
    return raw;
  }
}

/** One web_fetch: GET through the outbound guard, the answer as readable text. */
export async function webFetch(config: ToolsConfig, args: WebFetchArgs, context: ToolContext): Promise<ToolResult> {
  let response: OutboundResponse;
  try {
    response = await outboundFetch(args.url, toolOutboundPolicy(config), {
      headers: { accept: "text/html, application/xhtml+xml, text/plain;q=0.9, application/json;q=0.9, */*;q=0.1" },
      signal: context.signal,
    });
  } catch (error) {
    return fail(`web_fetch: ${errorMessage(error)}`);
  }
  const page = await readable(response, args.max_chars ?? WEB_FETCH_DEFAULT_CHARS);
  if (response.status < 200 || response.status >= 300) {
    return fail(`web_fetch: ${response.url} answered HTTP ${response.status}`, "text" in page ? page.text : "");
  }
  if ("refused" in page) return fail(`web_fetch: ${response.url}: ${page.refused}`);
  return ok(page.text);
}
