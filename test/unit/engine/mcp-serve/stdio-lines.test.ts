import { describe, expect, it } from 'vitest';
import { overLongReply, overLongRequestId, StdioLineGuard, type OverLongLine } from '../../../../electron/engine/mcp-serve/stdio-lines';

/** What the guard passes on and what it drops, for the chunks written to it. */
async function through(chunks: string[], maxBytes: number): Promise<{ out: string[]; dropped: OverLongLine[] }> {
  const dropped: OverLongLine[] = [];
  const guard = new StdioLineGuard((line) => dropped.push(line), maxBytes);
  const out: string[] = [];
  guard.on('data', (d: Buffer) => out.push(String(d)));
  const ended = new Promise((resolve) => guard.once('end', resolve));
  for (const c of chunks) guard.write(Buffer.from(c));
  guard.end();
  await ended;
  return { out, dropped };
}

describe('StdioLineGuard: stdin as whole lines, the over-long ones dropped and reported', () => {
  it('passes each line on by itself, however the chunks cut it', async () => {
    const { out, dropped } = await through(['{"a":1}\n{"b"', ':2}\n\n{"c":3}\n'], 100);
    expect(out).toEqual(['{"a":1}\n', '{"b":2}\n', '\n', '{"c":3}\n']);
    expect(dropped).toEqual([]);
  });

  it('drops a line over the limit (across chunks), keeps its ends, and goes on with the next line', async () => {
    const long = `{"method":"tools/call","params":{"x":"${'a'.repeat(50_000)}"},"jsonrpc":"2.0","id":7}`;
    const { out, dropped } = await through(['{"ok":1}\n', long.slice(0, 20_000), long.slice(20_000), '\n{"ok":2}\n'], 10_000);
    expect(out).toEqual(['{"ok":1}\n', '{"ok":2}\n']);
    expect(dropped).toHaveLength(1);
    expect(dropped[0]!.bytes).toBe(long.length);
    expect(dropped[0]!.head.startsWith('{"method":"tools/call"')).toBe(true);
    expect(dropped[0]!.tail.endsWith('"id":7}')).toBe(true);
  });

  it('a line of exactly the limit passes; one byte more is dropped', async () => {
    expect((await through([`${'b'.repeat(64)}\n`], 64)).out).toEqual([`${'b'.repeat(64)}\n`]);
    expect((await through([`${'b'.repeat(65)}\n`], 64)).dropped.map((d) => d.bytes)).toEqual([65]);
  });

  it('reports an over-long last line that never got its newline', async () => {
    expect((await through(['c'.repeat(200)], 64)).dropped.map((d) => d.bytes)).toEqual([200]);
  });
});

describe('the answer to a dropped message', () => {
  const big = 'z'.repeat(100);
  it('finds the id of a request at either end: first keys (hand-written clients) or last (the SDK Client)', () => {
    expect(overLongRequestId({ head: `{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"a":"${big}`, tail: `${big}"}}` })).toBe(12);
    expect(overLongRequestId({ head: `{"method":"tools/call","params":{"a":"${big}`, tail: `${big}"}},"jsonrpc":"2.0","id":"req-3"}` })).toBe('req-3');
    expect(overLongRequestId({ head: `{"id":5,"jsonrpc":"2.0","method":"x","params":"${big}`, tail: `${big}"}` })).toBe(5);
  });

  it('finds none in a notification, in an id nested in the params, or in what is not JSON-RPC', () => {
    expect(overLongRequestId({ head: `{"jsonrpc":"2.0","method":"notifications/x","params":{"a":"${big}`, tail: `${big}"}}` })).toBeNull();
    expect(overLongRequestId({ head: `{"method":"tools/call","params":{"a":"${big}`, tail: `${big}","inner":{"id":9}}}` })).toBeNull();
    expect(overLongRequestId({ head: big, tail: big })).toBeNull();
  });

  it('answers a request with JSON-RPC Invalid Request naming the size and the limit; a message without an id gets a stderr line only', () => {
    const answered = overLongReply({ bytes: 11_000_000, head: '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{', tail: '}}' }, 10_485_760);
    expect(answered.reply).toEqual({ jsonrpc: '2.0', id: 4, error: { code: -32600, message: expect.stringMatching(/11000000 bytes .* 10485760-byte limit/) } });
    expect(answered.log).toMatch(/^envace: mcp: message too large.*answered request 4 with an error; still serving$/);
    const unanswered = overLongReply({ bytes: 11_000_000, head: 'xx', tail: 'yy' });
    expect(unanswered.reply).toBeNull();
    expect(unanswered.log).toMatch(/no request id found .*still serving/);
  });
});
