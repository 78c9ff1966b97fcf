// One served session in process (the SDK's in-memory transport): BFCL items bring their own
// functions, which the session lists while their episode is open, announcing each change.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { getEnv } from '../../../../electron/engine/envs/registry';
import { EpisodeBook } from '../../../../electron/engine/mcp-serve/episodes';
import { sessionServer } from '../../../../electron/engine/mcp-serve/server';

describe('sessionServer', () => {
  it('lists a task’s own tools while its episode is open, and its gold call scores 1', async () => {
    const env = await getEnv('bfcl');
    const book = new EpisodeBook(env, 'heldout');
    const server = sessionServer(book, 's');
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'unit', version: '1.0.0' });
    let changes = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => void changes++);
    await client.connect(clientSide);
    const names = async () => (await client.listTools()).tools.map((t) => t.name);
    try {
      expect(await names()).toEqual(['start_task', 'finish', 'list_tasks']);
      const task = env.task(env.tasks('heldout')[0].id);
      const started = await client.callTool({ name: 'start_task', arguments: { task_id: task.id } });
      expect(started.structuredContent).toMatchObject({ tools: task.tools!.map((t) => t.name) });
      expect(await names()).toEqual(['start_task', 'finish', 'list_tasks', ...task.tools!.map((t) => t.name)]);
      for (const c of task.gold.calls) expect((await client.callTool({ name: c.name, arguments: c.arguments })).isError).toBeFalsy();
      const done = await client.callTool({ name: 'finish', arguments: {} });
      expect(done.structuredContent).toMatchObject({ reward: 1, success: true });
      expect(await names()).toEqual(['start_task', 'finish', 'list_tasks']);
      await new Promise((r) => setTimeout(r, 10));
      expect(changes).toBe(2);
    } finally {
      await client.close();
      await book.closeAll();
    }
  });

  it('answers a call with no open episode as an isError result in words, not a protocol error', async () => {
    const env = await getEnv('household');
    const server = sessionServer(new EpisodeBook(env, 'train'), 's');
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'unit', version: '1.0.0' });
    await client.connect(clientSide);
    try {
      expect(await client.callTool({ name: 'look', arguments: {} })).toEqual({
        content: [{ type: 'text', text: 'Error: no open episode in this session: call start_task first' }],
        isError: true,
      });
      expect(await client.callTool({ name: 'start_task', arguments: { seed: 'x' } })).toMatchObject({ isError: true, content: [{ text: 'Error: seed must be an integer, got "x"' }] });
      expect(await client.callTool({ name: 'list_tasks', arguments: { split: 'test' } })).toMatchObject({ isError: true });
    } finally {
      await client.close();
    }
  });
});
