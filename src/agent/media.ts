import type { MediaRef } from "../contracts/chat.ts";
import { errorMessage } from "../core/errors.ts";
import { refBytes, withHash } from "../media/ingest.ts";
import { TRANSCRIPT_MAX_CHARS } from "../media/limits.ts";
import type { MediaStore } from "../storage/types.ts";
import type { Config } from "../config/schema.ts";
import type { ProviderResolver } from "../providers/types.ts";

/** Turns audio into text: the transcript, or null when no transcription model is configured. */
export type Transcriber = (audio: MediaRef, signal: AbortSignal) => Promise<string | null>;

export const UNHEARD_NOTE = "[a voice note arrived, but it could not be heard: no transcription model is configured]";

/**
 * The user's text with each audio clip's transcript (marked as one), or a note that it arrived and could not be
 * heard. A failed transcription is said in the turn rather than dropped.
 */
export async function withTranscripts(text: string, media: MediaRef[], transcribe: Transcriber | undefined, signal: AbortSignal): Promise<string> {
  const parts = text === "" ? [] : [text];
  for (const audio of media) {
    if (audio.kind !== "audio") continue;
    let heard: string | null;
    try {
      heard = transcribe ? await transcribe(audio, signal) : null;
    } catch (error) {
      parts.push(`[a voice note arrived, but its transcription failed: ${errorMessage(error)}]`);
      continue;
    }
    if (heard === null) parts.push(UNHEARD_NOTE);
    else parts.push(`[voice note transcript]\n${heard.trim().slice(0, TRANSCRIPT_MAX_CHARS)}`);
  }
  return parts.join("\n\n");
}

/**
 * The bytes a turn's new message carries go into the media store (by hash) before the message refers to them; the
 * refs come back with their hashes.
 */
export async function keepMedia(store: MediaStore, media: MediaRef[]): Promise<MediaRef[]> {
  const kept: MediaRef[] = [];
  for (const given of media) {
    const ref = withHash(given);
    const data = ref.sha256 && ref.mime ? refBytes(ref) : null;
    if (data) await store.put({ sha256: ref.sha256!, mime: ref.mime!, data });
    kept.push(ref);
  }
  return kept;
}

/**
 * Speech to text through the provider configured with `transcription_model` (the default provider when it has one,
 * else the first that does); undefined when none is.
 */
export function configuredTranscriber(config: Config, providers: ProviderResolver): Transcriber | undefined {
  const names = Object.keys(config.providers).filter((name) => config.providers[name]!.transcription_model !== undefined);
  if (names.length === 0) return undefined;
  const name = names.includes(config.default_provider) ? config.default_provider : names[0]!;
  return async (audio, signal) => {
    const provider = providers.resolve(name);
    const data = refBytes(audio);
    if (!provider.transcribe || !data || !audio.mime) return null;
    return (await provider.transcribe({ audio: data, mime: audio.mime, signal })).text;
  };
}
