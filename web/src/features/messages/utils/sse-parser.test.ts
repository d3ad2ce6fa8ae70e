import { describe, expect, it } from 'vitest';
import { SseParser } from './sse-parser';

describe('SseParser', () => {
  it('reads the id, event and data fields of one event', () => {
    const p = new SseParser();
    expect(p.push('id: 7\nevent: message\ndata: {"id":7}\n\n')).toEqual([
      { type: 'message', data: '{"id":7}', lastEventId: '7' },
    ]);
  });

  it('completes an event split across chunks at any point, CRLF split between chunks included', () => {
    const text = 'id: 12\r\nevent: message\r\ndata: {"content":"héllo"}\r\n\r\nevent: read\r\ndata: {}\r\n\r\n';
    for (let cut = 1; cut < text.length; cut++) {
      const p = new SseParser();
      const events = [...p.push(text.slice(0, cut)), ...p.push(text.slice(cut))];
      expect(events, `cut at ${cut}`).toEqual([
        { type: 'message', data: '{"content":"héllo"}', lastEventId: '12' },
        { type: 'read', data: '{}', lastEventId: '12' },
      ]);
    }
  });

  it('joins multi-line data with newlines and keeps a second space after the colon', () => {
    const p = new SseParser();
    expect(p.push('data: first\ndata:second\ndata:  indented\n\n')).toEqual([
      { type: 'message', data: 'first\nsecond\n indented', lastEventId: '' },
    ]);
  });

  it('ignores comments such as the heartbeat, and unknown fields', () => {
    const p = new SseParser();
    expect(p.push(': ping\n\n')).toEqual([]);
    expect(p.push(': ping\nfoo: bar\nevent: end\ndata: {"reason":"server_shutdown"}\n\n')).toEqual([
      { type: 'end', data: '{"reason":"server_shutdown"}', lastEventId: '' },
    ]);
  });

  it('keeps the last event id for later events and reads retry', () => {
    const p = new SseParser();
    const events = p.push('retry: 3000\nid: 41\nevent: ready\ndata: {"lastEventId":41}\n\nevent: read\ndata: {}\n\n');
    expect(events.map((e) => [e.type, e.lastEventId])).toEqual([
      ['ready', '41'],
      ['read', '41'],
    ]);
    expect(p.retryMs).toBe(3000);
    expect(p.lastEventId).toBe('41');
  });

  it('dispatches nothing for an event without data and nothing before the blank line', () => {
    const p = new SseParser();
    expect(p.push('event: message\n\n')).toEqual([]);
    expect(p.push('data: waiting')).toEqual([]);
    expect(p.push('\n')).toEqual([]);
    expect(p.push('\n')).toEqual([{ type: 'message', data: 'waiting', lastEventId: '' }]);
  });

  it('accepts lone CR line endings', () => {
    const p = new SseParser();
    expect(p.push('event: read\rdata: x\r\r')).toEqual([{ type: 'read', data: 'x', lastEventId: '' }]);
  });
});
