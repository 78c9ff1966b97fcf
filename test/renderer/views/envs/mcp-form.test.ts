import { describe, expect, it } from 'vitest';
import { ContractError } from '../../../../electron/contract';
import { buildAddMcpInput, emptyMcpForm, engineErrorField, splitCommandLine } from '../../../../renderer/src/views/envs/mcp-form';

describe('splitCommandLine', () => {
  it('splits on spaces and keeps quoted spaces and escapes inside one word', () => {
    expect(splitCommandLine('  node  server.js   /data ')).toEqual({ ok: true, words: ['node', 'server.js', '/data'] });
    expect(splitCommandLine(`node "my server.js" '/a b' c\\ d ""`)).toEqual({ ok: true, words: ['node', 'my server.js', '/a b', 'c d', ''] });
    expect(splitCommandLine(`echo "say \\"hi\\""`)).toEqual({ ok: true, words: ['echo', 'say "hi"'] });
  });

  it('reports an unclosed quote instead of guessing', () => {
    expect(splitCommandLine('node "server.js')).toEqual({ ok: false, issue: 'a double quote is not closed' });
    expect(splitCommandLine("node 'x")).toEqual({ ok: false, issue: 'a single quote is not closed' });
  });
});

describe('buildAddMcpInput', () => {
  const filled = { ...emptyMcpForm, id: 'fs-tools', commandLine: 'node server.js /sandbox', taskFile: '/home/a/.envace/tasks.jsonl' };

  it('builds a stdio request with the contract defaults filled in', () => {
    expect(buildAddMcpInput(filled)).toEqual({
      ok: true,
      value: { id: 'fs-tools', server: { command: 'node', args: ['server.js', '/sandbox'] }, taskFile: '/home/a/.envace/tasks.jsonl', timeoutMs: 10_000, maxOutputChars: 8_000 },
    });
  });

  it('builds an HTTP request from a URL', () => {
    const result = buildAddMcpInput({ ...filled, transport: 'http', url: 'http://127.0.0.1:3001/mcp', description: 'remote' });
    expect(result.ok && result.value.server).toEqual({ url: 'http://127.0.0.1:3001/mcp' });
    expect(result.ok && result.value.description).toBe('remote');
  });

  it('puts each problem at its field', () => {
    const result = buildAddMcpInput({ ...emptyMcpForm, id: 'bad id!', transport: 'http', url: 'ftp://x', timeoutMs: '5', maxOutputChars: 'lots' });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(Object.keys(result.issues).sort()).toEqual(['id', 'maxOutputChars', 'server', 'taskFile', 'timeoutMs']);
    expect(result.issues.id).toMatch(/letters, digits/);
    expect(result.issues.server).toBe('an http:// or https:// URL');
  });

  it('asks for a command when the command line is empty or broken', () => {
    const empty = buildAddMcpInput({ ...filled, commandLine: '   ' });
    expect(!empty.ok && empty.issues.server).toMatch(/type the command/);
    const broken = buildAddMcpInput({ ...filled, commandLine: "node 'x" });
    expect(!broken.ok && broken.issues.server).toBe('a single quote is not closed');
  });
});

describe('engineErrorField', () => {
  it('maps the engine refusal to the field it is about', () => {
    expect(engineErrorField(new ContractError('invalid_input', 'bad', [{ path: 'timeoutMs', message: 'too small' }]))).toBe('timeoutMs');
    expect(engineErrorField(new ContractError('conflict', 'an MCP environment "x" already exists'))).toBe('id');
    expect(engineErrorField(new ContractError('invalid_input', 'task file /x.jsonl does not exist'))).toBe('taskFile');
    expect(engineErrorField(new ContractError('invalid_input', 'the MCP environment could not start: spawn nope ENOENT'))).toBe('server');
    expect(engineErrorField(new ContractError('engine_unavailable', 'gone'))).toBeNull();
    expect(engineErrorField(new Error('plain'))).toBeNull();
  });
});
