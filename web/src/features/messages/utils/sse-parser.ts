/** One dispatched Server-Sent Event (WHATWG HTML §9.2.6 "event stream interpretation"). */
export type SseEvent = {
  /** The `event:` field, or 'message' when the event named none. */
  type: string;
  /** The `data:` lines joined with '\n'. */
  data: string;
  /** The last event id seen on the stream so far (it carries over to later events, as the WHATWG algorithm says). */
  lastEventId: string;
};

/**
 * Incremental parser for `text/event-stream`: feed it decoded text in whatever pieces the network
 * delivers and it returns the events completed so far. Lines may end in CRLF, LF or CR, even when
 * the CR and LF arrive in different chunks; comments (`: ping`) and unknown fields are ignored.
 */
export class SseParser {
  private buffer = '';
  private pendingCr = false;
  private data: string[] = [];
  private hasData = false;
  private type = '';
  lastEventId = '';
  /** Reconnection time the server asked for (`retry:`), in ms. */
  retryMs: number | undefined;

  push(chunk: string): SseEvent[] {
    const events: SseEvent[] = [];
    let text = chunk;
    // A CR ended the previous chunk: an LF opening this one belongs to the same line break.
    if (this.pendingCr && text.startsWith('\n')) text = text.slice(1);
    this.pendingCr = false;
    this.buffer += text;

    let start = 0;
    for (let i = 0; i < this.buffer.length; i++) {
      const ch = this.buffer[i];
      if (ch !== '\n' && ch !== '\r') continue;
      const line = this.buffer.slice(start, i);
      if (ch === '\r') {
        if (i + 1 < this.buffer.length) {
          if (this.buffer[i + 1] === '\n') i++;
        } else {
          this.pendingCr = true;
        }
      }
      start = i + 1;
      const event = this.processLine(line);
      if (event) events.push(event);
    }
    this.buffer = this.buffer.slice(start);
    return events;
  }

  private processLine(line: string): SseEvent | undefined {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'event':
        this.type = value;
        break;
      case 'data':
        this.data.push(value);
        this.hasData = true;
        break;
      case 'id':
        if (!value.includes('\0')) this.lastEventId = value;
        break;
      case 'retry':
        if (/^\d+$/.test(value)) this.retryMs = Number(value);
        break;
      default:
        break;
    }
    return undefined;
  }

  private dispatch(): SseEvent | undefined {
    const event = this.hasData
      ? { type: this.type || 'message', data: this.data.join('\n'), lastEventId: this.lastEventId }
      : undefined;
    this.data = [];
    this.hasData = false;
    this.type = '';
    return event;
  }
}
