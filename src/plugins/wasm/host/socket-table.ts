import { HostError } from "./errors.ts";

export interface Connection {
  socket: WebSocket;
  inbox: string[];
  waiter: (() => void) | null;
  closed: string | null;
}

/** Per sandbox: connections survive between calls of one plugin and close when the sandbox ends. */
export class WebSocketTable {
  private next = 1;
  readonly open = new Map<number, Connection>();
  /** Connects still opening: they count against the limit, so concurrent connects cannot exceed it. */
  connecting = 0;

  add(conn: Connection): number {
    const id = this.next++;
    this.open.set(id, conn);
    return id;
  }

  get(id: bigint | number): Connection {
    const conn = this.open.get(Number(id));
    if (!conn) throw new HostError(`websocket ${id} is not open`);
    return conn;
  }

  closeAll(): void {
    for (const conn of this.open.values()) conn.socket.close();
    this.open.clear();
  }
}
