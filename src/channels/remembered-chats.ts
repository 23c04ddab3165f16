import { CHANNEL_MAX_REMEMBERED_CHATS } from "./limits.ts";

/** What an adapter keeps per chat, at most `max` chats: setting one makes it the newest; past the bound the oldest goes. */
export class RememberedChats<T> {
  private readonly entries = new Map<string, T>();

  constructor(private readonly max = CHANNEL_MAX_REMEMBERED_CHATS) {}

  get(chat: string): T | undefined {
    return this.entries.get(chat);
  }

  set(chat: string, value: T): void {
    this.entries.delete(chat);
    this.entries.set(chat, value);
    if (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value!);
  }

  delete(chat: string): void {
    this.entries.delete(chat);
  }

  values(): IterableIterator<T> {
    return this.entries.values();
  }

  get size(): number {
    return this.entries.size;
  }
}
