import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { serve, ServeError, type RunningServer } from '../../../electron/server';
import { deeplyNestedText } from '../../unit/fuzz/payloads';
import { resolveStatic } from '../../../electron/server/static';
import { tempHome, testEngine } from '../../helpers/engine';

let env: ReturnType<typeof testEngine>;
let server: RunningServer;
let staticDir: string;

function get(pathAndQuery: string, headers: Record<string, string> = {}, at: { host: string; port: number } = { host: '127.0.0.1', port: server.port }): Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ ...at, path: pathAndQuery, headers }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    req.on('error', reject);
  });
}

function upgrade(url: string, headers: Record<string, string> = {}): Promise<'open' | number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { headers });
    ws.on('open', () => {
      ws.close();
      resolve('open');
    });
    ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.on('error', () => {});
  });
}

beforeAll(async () => {
  env = testEngine();
  staticDir = tempHome('envace-static-');
  fs.writeFileSync(path.join(staticDir, 'index.html'), '<!doctype html><title>workbench</title>');
  fs.mkdirSync(path.join(staticDir, 'assets'));
  fs.writeFileSync(path.join(staticDir, 'assets', 'app.js'), 'console.log(1)');
  fs.writeFileSync(path.join(env.home, 'secret.txt'), 'do not serve');
  server = await serve({ engine: env.engine, staticDir, token: 'sesame-token' });
});

afterAll(async () => {
  await server.close();
  await env.cleanup();
  fs.rmSync(staticDir, { recursive: true, force: true });
});

describe('web mode', () => {
  it('binds loopback only and refuses any other host', async () => {
    expect(server.host).toBe('127.0.0.1');
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/?token=sesame-token`);
    await expect(serve({ engine: env.engine, staticDir, host: '0.0.0.0' })).rejects.toThrow(ServeError);
    await expect(serve({ engine: env.engine, staticDir, host: '192.168.1.10' })).rejects.toThrow(/loopback only/);
  });

  it('refuses the page and assets without the token', async () => {
    expect((await get('/')).status).toBe(401);
    expect((await get('/assets/app.js')).status).toBe(401);
    expect((await get('/?token=wrong')).status).toBe(401);
  });

  it('serves the page with the token, sets the session cookie, and sends a strict CSP', async () => {
    const page = await get('/?token=sesame-token');
    expect(page.status).toBe(200);
    expect(page.body).toContain('<title>workbench</title>');
    expect(String(page.headers['set-cookie'])).toMatch(/envace_token=sesame-token; HttpOnly; SameSite=Strict/);
    expect(page.headers['content-security-policy']).toMatch(/default-src 'self'.*script-src 'self'/);
    expect(page.headers['x-frame-options']).toBe('DENY');
    const asset = await get('/assets/app.js', { Cookie: 'envace_token=sesame-token' });
    expect(asset).toMatchObject({ status: 200, body: 'console.log(1)' });
  });

  it('refuses a foreign Host header (DNS rebinding) even with the token', async () => {
    expect((await get('/?token=sesame-token', { Host: 'evil.example:80' })).status).toBe(403);
  });

  it('never serves files outside the renderer folder', async () => {
    for (const attempt of ['/../secret.txt', '/%2e%2e/secret.txt', '/assets/..%2f..%2fsecret.txt', '/%00index.html']) {
      const res = await get(`${attempt}?token=sesame-token`);
      expect(res.body).not.toContain('do not serve');
    }
    expect(resolveStatic(staticDir, '/../../etc/passwd')).toBeNull();
    expect(resolveStatic(staticDir, '/%2e%2e%2fetc%2fpasswd')).toBeNull();
  });

  it('opens the contract socket only with the token and from our own origin', async () => {
    const base = `ws://127.0.0.1:${server.port}/api`;
    expect(await upgrade(base)).toBe(401);
    expect(await upgrade(`${base}?token=nope`)).toBe(401);
    expect(await upgrade(`${base}?token=sesame-token`, { Origin: 'http://evil.example' })).toBe(403);
    expect(await upgrade(`${base}?token=sesame-token`)).toBe('open');
    expect(await upgrade(base, { Cookie: 'envace_token=sesame-token', Origin: `http://127.0.0.1:${server.port}` })).toBe('open');
  });
});

/** Open the contract socket with the token, send raw frames, collect the answers. */
async function exchange(frames: string[], count = frames.length): Promise<Array<{ id: number | null; result: { ok: boolean; error?: { code: string; message: string } } }>> {
  const ws = new WebSocket(`ws://127.0.0.1:${server.port}/api?token=sesame-token`);
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const answers: Array<{ type: string; id: number | null; result: { ok: boolean; error?: { code: string; message: string } } }> = [];
  const done = new Promise<void>((resolve) =>
    ws.on('message', (data) => {
      const frame = JSON.parse(String(data));
      if (frame.type === 'response') answers.push(frame);
      if (answers.length === count) resolve();
    }),
  );
  // One at a time: the answers come back in the order sent.
  for (const frame of frames) ws.send(frame);
  await done;
  ws.close();
  return answers;
}

const infoFrame = (id: number) => JSON.stringify({ type: 'request', id, method: 'system.info', input: {} });

describe('web mode hardening', () => {
  it('a malformed cookie (envace_token=%ZZ) is no token: 401 over HTTP and on the socket, and the server keeps answering', async () => {
    for (const cookie of ['envace_token=%ZZ', 'envace_token=%', 'a=%E0%A4%A; envace_token=%ZZ%', 'envace_token=%ZZ; envace_token=sesame-token'])
      expect((await get('/', { Cookie: cookie })).status, cookie).toBe(401);
    expect(await upgrade(`ws://127.0.0.1:${server.port}/api`, { Cookie: 'envace_token=%ZZ' })).toBe(401);
    expect((await get('/?token=sesame-token')).status).toBe(200);
  });

  it('request targets that new URL(target, base) throws on (GET //, //a:b@) get ordinary answers, not a crash', async () => {
    expect((await get('//')).status).toBe(401);
    expect((await get('//a:b@')).status).toBe(401);
    expect((await get('//?token=sesame-token')).body).toContain('<title>workbench</title>');
    expect(await upgrade(`ws://127.0.0.1:${server.port}//:99999`)).toBe(404);
    expect((await get('/?token=sesame-token')).status).toBe(200);
  });

  it('a 3 KB frame nesting 1,500 deep, and one nesting 200,000 deep, get typed errors; the socket still answers system.info', async () => {
    const deepInput = `{"type":"request","id":1,"method":"envs.call","input":{"env":"contract-test","tool":"echo","arguments":{"text":${deeplyNestedText(1_500)}}}}`;
    expect(deepInput.length).toBeLessThan(10_000);
    const deepFrame = `{"type":"request","id":2,"method":"system.info","input":${deeplyNestedText(200_000, 'array')}}`;
    const answers = await exchange([deepInput, deepFrame, infoFrame(3)]);
    expect(answers[0]).toMatchObject({ result: { ok: false, error: { code: 'invalid_input', message: expect.stringMatching(/deeper than 65 levels/) } } });
    expect(answers[1]).toMatchObject({ result: { ok: false, error: { code: 'invalid_input', message: expect.stringMatching(/deeper than 65 levels/) } } });
    expect(answers[2]).toMatchObject({ id: 3, result: { ok: true } });
  });

  it('--host 127.0.0.2: the printed URL answers 200, its own origin may open the socket, and the CSP names it', async () => {
    const other = await serve({ engine: env.engine, staticDir, host: '127.0.0.2', token: 'other-token' });
    try {
      expect(other.url).toBe(`http://127.0.0.2:${other.port}/?token=other-token`);
      const at = { host: '127.0.0.2', port: other.port };
      const page = await get('/?token=other-token', {}, at);
      expect(page.status).toBe(200);
      expect(page.headers['content-security-policy']).toContain(`ws://127.0.0.2:${other.port}`);
      expect((await get('/?token=other-token', { Host: 'evil.example' }, at)).status).toBe(403);
      expect(await upgrade(`ws://127.0.0.2:${other.port}/api?token=other-token`, { Origin: `http://127.0.0.2:${other.port}` })).toBe('open');
      expect(await upgrade(`ws://127.0.0.2:${other.port}/api?token=other-token`, { Origin: 'http://127.0.0.3' })).toBe(403);
    } finally {
      await other.close();
    }
  });

  it('close() ends at once although a browser holds a socket that never sent a request and a kept-alive one', async () => {
    // Chromium opens speculative sockets before it needs them; Node 20's server.close() waits on those forever.
    const other = await serve({ engine: env.engine, staticDir, token: 'close-token' });
    const silent = net.connect(other.port, '127.0.0.1');
    await new Promise((resolve) => silent.once('connect', resolve));
    const agent = new http.Agent({ keepAlive: true });
    await new Promise<void>((resolve, reject) => http.get({ host: '127.0.0.1', port: other.port, path: '/?token=close-token', agent }, (res) => res.resume().on('end', resolve)).on('error', reject));
    const silentClosed = new Promise((resolve) => silent.once('close', resolve));
    const outcome = await Promise.race([other.close().then(() => 'closed'), new Promise((resolve) => setTimeout(() => resolve('still open after 10 s'), 10_000))]);
    agent.destroy();
    silent.destroy();
    expect(outcome).toBe('closed');
    await silentClosed;
  });
});
