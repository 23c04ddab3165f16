/**
 * Mattermost API v4 as prx reads it (https://developers.mattermost.com/api-documentation/): GET /api/v4/users/me,
 * POST /api/v4/posts (`root_id` threads a reply), and the WebSocket /api/v4/websocket
 * (https://developers.mattermost.com/api-documentation/#/#websocket): `authentication_challenge` with the token,
 * `{status: "OK", seq_reply}`, `hello`, and `posted` events whose `data.post` is the post as a JSON string.
 */
import { z } from "zod";

export const MeSchema = z.looseObject({ id: z.string().min(1), username: z.string(), is_bot: z.boolean().optional() });

/** POST /api/v4/files: `{file_infos: [{id, name, ...}], client_ids}`. */
export const UploadedFilesSchema = z.looseObject({ file_infos: z.array(z.looseObject({ id: z.string().min(1) })).min(1) });

export const PostSchema = z.looseObject({
  id: z.string().min(1).max(64),
  create_at: z.number().int().nonnegative(),
  user_id: z.string().min(1).max(64),
  channel_id: z.string().min(1).max(64),
  root_id: z.string().max(64).default(""),
  message: z.string(),
  type: z.string().default(""),
  file_ids: z.array(z.string().max(64)).nullable().optional(),
  props: z.looseObject({ from_bot: z.union([z.string(), z.boolean()]).optional() }).nullable().optional(),
  metadata: z.looseObject({ files: z.array(z.looseObject({ id: z.string(), mime_type: z.string().optional(), size: z.number().optional() })).optional() }).optional(),
});
export type Post = z.infer<typeof PostSchema>;

export const SocketEventSchema = z.looseObject({
  event: z.string().optional(),
  data: z.record(z.string(), z.unknown()).optional(),
  seq: z.number().optional(),
  status: z.string().optional(),
  seq_reply: z.number().optional(),
  error: z.unknown().optional(),
});

export const PostedDataSchema = z.looseObject({
  /** "D" direct, "G" group DM, "O" public, "P" private channel. */
  channel_type: z.string(),
  sender_name: z.string().optional(),
  /** The post, as a JSON string. */
  post: z.string(),
  /** The mentioned user ids, as a JSON string of an array (absent when none). */
  mentions: z.string().optional(),
});

export const MattermostErrorSchema = z.looseObject({ id: z.string().optional(), message: z.string(), status_code: z.number().optional() });
