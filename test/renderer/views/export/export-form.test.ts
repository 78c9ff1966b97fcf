import { describe, expect, it } from 'vitest';
import { buildExportInput, describeExportSource, exportableRuns, exportsFolder, resolveDestination, totalBytes } from '../../../../renderer/src/views/export/export-form';
import { makeRun } from '../../make-run';

describe('resolveDestination', () => {
  it('leaves the folder to the engine when nothing is typed', () => {
    expect(resolveDestination('/home/a/.envace', '  ')).toEqual({ ok: true, outDir: undefined });
  });

  it('puts a typed name inside the data home exports folder, spelled with the engine separator', () => {
    expect(resolveDestination('/home/a/.envace/', 'agent-v1')).toEqual({ ok: true, outDir: '/home/a/.envace/exports/agent-v1' });
    expect(resolveDestination('C:\\Users\\a\\envace', 'agent.v1')).toEqual({ ok: true, outDir: 'C:\\Users\\a\\envace\\exports\\agent.v1' });
    expect(exportsFolder('C:\\Users\\a\\envace')).toBe('C:\\Users\\a\\envace\\exports');
  });

  it('refuses names that could leave the exports folder', () => {
    for (const name of ['..', '.', '../runs', 'a/b', 'a\\b', '/tmp/x', 'with space']) {
      const result = resolveDestination('/home/a/.envace', name);
      expect(result.ok, name).toBe(false);
    }
  });
});

const run = (id: string, steps: number[]) => makeRun(id, { checkpointSteps: steps });

describe('export request', () => {
  it('keeps only runs with a checkpoint', () => {
    expect(exportableRuns([run('a', []), run('b', [1, 2]), run('c', [])]).map((r) => r.id)).toEqual(['b']);
  });

  it('names the step only when one was picked, and the dtype only for GGUF', () => {
    expect(buildExportInput({ kind: 'run', runId: 'r1', step: null }, 'hf', undefined, 'f16', false)).toEqual({ source: { run: 'r1' }, format: 'hf', force: false });
    expect(buildExportInput({ kind: 'run', runId: 'r1', step: 0 }, 'gguf', '/h/exports/x', 'f32', true)).toEqual({
      source: { run: 'r1', step: 0 },
      format: 'gguf',
      outDir: '/h/exports/x',
      ggufDtype: 'f32',
      force: true,
    });
    expect(buildExportInput({ kind: 'model', model: 'qwen-mini' }, 'onnx', undefined, 'f16', false)).toEqual({ source: { model: 'qwen-mini' }, format: 'onnx', force: false });
  });

  it('sums file sizes and describes where an export came from', () => {
    expect(totalBytes([{ name: 'a', bytes: 1000 }, { name: 'b', bytes: 24 }])).toBe(1024);
    expect(totalBytes([])).toBe(0);
    expect(describeExportSource({ runId: 'run-7', step: 3, model: null })).toBe('run run-7 · step 3');
    expect(describeExportSource({ runId: null, step: null, model: 'qwen-mini' })).toBe('model qwen-mini');
  });
});
