import { describe, expect, it } from 'vitest';
import { ContractError } from '../../../../electron/contract';
import { buildAddMcpInput, emptyMcpForm, engineErrorField, envFromRows, splitCommandLine, URL_CANNOT_RESTART } from '../../../../renderer/src/views/envs/mcp-form';

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

  it('builds a stdio request that restarts the server per episode, with the contract defaults filled in', () => {
    expect(buildAddMcpInput(filled)).toEqual({
      ok: true,
      value: {
        id: 'fs-tools',
        server: { command: 'node', args: ['server.js', '/sandbox'], env: {} },
        taskFile: '/home/a/.envace/tasks.jsonl',
        reset: { kind: 'restart', seedFiles: [] },
        timeoutMs: 10_000,
        maxOutputChars: 8_000,
      },
    });
  });

  it('sends environment variables, the working folder and the seed files of a restart', () => {
    const result = buildAddMcpInput({
      ...filled,
      commandLine: 'npx -y @modelcontextprotocol/server-memory',
      envRows: [
        { key: ' MEMORY_FILE_PATH ', value: '{episode_dir}/memory.jsonl' },
        { key: '', value: '' },
        { key: 'EMPTY', value: '' },
      ],
      cwd: ' {episode_dir} ',
      seedFiles: '/home/a/.envace/seed/memory.jsonl\n\n  /home/a/.envace/seed/notes.txt  \n',
    });
    expect(result.ok && result.value.server).toEqual({
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-memory'],
      env: { MEMORY_FILE_PATH: '{episode_dir}/memory.jsonl', EMPTY: '' },
      cwd: '{episode_dir}',
    });
    expect(result.ok && result.value.reset).toEqual({ kind: 'restart', seedFiles: ['/home/a/.envace/seed/memory.jsonl', '/home/a/.envace/seed/notes.txt'] });
  });

  it('builds a reset-tool request with its JSON arguments', () => {
    const result = buildAddMcpInput({ ...filled, reset: 'tool', resetTool: ' reset_db ', resetArguments: '{"fixture": "small", "seed": 3}' });
    expect(result.ok && result.value.reset).toEqual({ kind: 'tool', tool: 'reset_db', arguments: { fixture: 'small', seed: 3 } });
    const noTool = buildAddMcpInput({ ...filled, reset: 'tool', resetTool: '  ' });
    expect(!noTool.ok && noTool.issues.reset).toMatch(/name the server's tool/);
    const badArgs = buildAddMcpInput({ ...filled, reset: 'tool', resetTool: 'reset_db', resetArguments: '[1]' });
    expect(!badArgs.ok && badArgs.issues.reset).toMatch(/^reset arguments: arguments must be a JSON object/);
  });

  it('shares state only when the box is ticked', () => {
    const unticked = buildAddMcpInput({ ...filled, reset: 'none' });
    expect(unticked.ok).toBe(false);
    expect(!unticked.ok && unticked.issues.reset).toMatch(/tick the box/);
    const ticked = buildAddMcpInput({ ...filled, reset: 'none', sharedState: true });
    expect(ticked.ok && ticked.value.reset).toEqual({ kind: 'none', sharedState: true });
  });

  it('builds an HTTP request from a URL, which must pick a reset tool or no reset', () => {
    const url = { ...filled, transport: 'http' as const, url: 'http://127.0.0.1:3001/mcp', description: 'remote' };
    const restart = buildAddMcpInput(url);
    expect(restart).toEqual({ ok: false, issues: { reset: URL_CANNOT_RESTART } });
    const result = buildAddMcpInput({ ...url, reset: 'tool', resetTool: 'reset' });
    expect(result.ok && result.value.server).toEqual({ url: 'http://127.0.0.1:3001/mcp' });
    expect(result.ok && result.value.reset).toEqual({ kind: 'tool', tool: 'reset', arguments: {} });
    expect(result.ok && result.value.description).toBe('remote');
  });

  it('refuses bad variable rows at the variables, not at the command', () => {
    const bad = buildAddMcpInput({ ...filled, envRows: [{ key: 'OK', value: '1' }, { key: '1X', value: 'v' }] });
    expect(bad).toEqual({ ok: false, issues: { env: 'variable 2: "1X" is not a variable name (letters, digits and _, not starting with a digit)' } });
  });

  it('puts each problem at its field', () => {
    const result = buildAddMcpInput({ ...emptyMcpForm, id: 'bad id!', transport: 'http', url: 'ftp://x', reset: 'none', sharedState: true, timeoutMs: '5', maxOutputChars: 'lots' });
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

describe('envFromRows', () => {
  it('skips blank rows and refuses a nameless value or a name set twice', () => {
    expect(envFromRows([{ key: 'A', value: 'x y' }, { key: ' ', value: '' }])).toEqual({ ok: true, env: { A: 'x y' } });
    expect(envFromRows([{ key: '', value: 'v' }])).toEqual({ ok: false, issue: 'variable 1 has a value but no name' });
    expect(envFromRows([{ key: 'A', value: '1' }, { key: 'A ', value: '2' }])).toEqual({ ok: false, issue: 'A is set twice' });
    expect(envFromRows([{ key: 'A-B', value: '1' }]).ok).toBe(false);
  });
});

describe('engineErrorField', () => {
  it('maps the engine refusal to the field it is about', () => {
    expect(engineErrorField(new ContractError('invalid_input', 'bad', [{ path: 'timeoutMs', message: 'too small' }]))).toBe('timeoutMs');
    expect(engineErrorField(new ContractError('conflict', 'an MCP environment "x" already exists'))).toBe('id');
    expect(engineErrorField(new ContractError('invalid_input', 'task file /x.jsonl does not exist'))).toBe('taskFile');
    expect(engineErrorField(new ContractError('invalid_input', 'the MCP environment could not start: spawn nope ENOENT'))).toBe('server');
    expect(engineErrorField(new ContractError('invalid_input', 'bad', [{ path: 'server.env.1X', message: 'an environment variable name' }]))).toBe('env');
    expect(engineErrorField(new ContractError('invalid_input', 'bad', [{ path: 'reset', message: 'a server reached by URL…' }]))).toBe('reset');
    expect(engineErrorField(new ContractError('invalid_input', 'a seed file must be inside /h when chosen from the workbench window (got /tmp/x)'))).toBe('reset');
    expect(engineErrorField(new ContractError('engine_unavailable', 'gone'))).toBeNull();
    expect(engineErrorField(new Error('plain'))).toBeNull();
  });
});
