/**
 * The Matrix Client-Server API shapes prx reads (https://spec.matrix.org/v1.11/client-server-api/): GET /sync
 * (#get_matrixclientv3sync), whoami (#get_matrixclientv3accountwhoami), join (#post_matrixclientv3joinroomidoralias),
 * send (#put_matrixclientv3roomsroomidsendeventtypetxnid), typing (#put_matrixclientv3roomsroomidtypinguserid);
 * errors `{errcode, error}` with M_LIMIT_EXCEEDED's retry_after_ms (#rate-limiting); m.room.message
 * (#mroommessage), threads (#threading), mentions (#user-and-room-mentions).
 */
import { z } from "zod";

export const MatrixErrorSchema = z.looseObject({ errcode: z.string(), error: z.string().optional(), retry_after_ms: z.number().optional() });
export const WhoamiSchema = z.looseObject({ user_id: z.string(), device_id: z.string().optional() });
export const SentEventSchema = z.looseObject({ event_id: z.string() });
export const JoinedSchema = z.looseObject({ room_id: z.string() });

export const RoomEventSchema = z.looseObject({
  type: z.string(),
  event_id: z.string().optional(),
  sender: z.string(),
  origin_server_ts: z.number().optional(),
  state_key: z.string().optional(),
  content: z.looseObject({}),
});
export const MessageContentSchema = z.looseObject({
  msgtype: z.string(),
  body: z.string(),
  "m.relates_to": z
    .looseObject({ rel_type: z.string().optional(), event_id: z.string().optional(), "m.in_reply_to": z.looseObject({ event_id: z.string() }).optional() })
    .optional(),
  "m.mentions": z.looseObject({ user_ids: z.array(z.string()).optional() }).optional(),
  /** m.image / m.audio (https://spec.matrix.org/v1.11/client-server-api/#mimage): the mxc:// URI of the file. */
  url: z.string().optional(),
  /** When present and unlike `body`, `body` is a caption (Matrix 1.10). */
  filename: z.string().optional(),
  info: z.looseObject({ mimetype: z.string().optional(), size: z.number().int().optional(), duration: z.number().optional() }).optional(),
});

export const SyncSchema = z.looseObject({
  next_batch: z.string(),
  rooms: z
    .looseObject({
      join: z
        .record(
          z.string(),
          z.looseObject({
            timeline: z.looseObject({ events: z.array(z.unknown()).default([]) }).optional(),
            summary: z.looseObject({ "m.joined_member_count": z.number().optional() }).optional(),
          }),
        )
        .optional(),
      invite: z.record(z.string(), z.looseObject({ invite_state: z.looseObject({ events: z.array(z.unknown()).default([]) }).optional() })).optional(),
    })
    .optional(),
});
export type Sync = z.infer<typeof SyncSchema>;

/** POST /_matrix/media/v3/upload: `{content_uri}` (an mxc:// URI). */
export const UploadedSchema = z.looseObject({ content_uri: z.string().startsWith("mxc://") });
