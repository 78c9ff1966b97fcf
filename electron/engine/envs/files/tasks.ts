/**
 * `files` task generation. Every task is computed from its own seeded tree, so the gold calls,
 * the expected answer and the expected end state are known exactly.
 *
 * train / heldout: find-and-read, count, content search, move, write (heldout trees use unseen
 * file names); ood: two-step chains (count then write, find then move).
 */
import type { ChecklistItem, JsonValue, Split, Task, ToolCall } from '../types';
import { hashString, Rng } from '../../random';
import { SANDBOX_ALIAS } from './sandbox';
import { csvRows, generateTree, type SandboxFile, type SandboxTree } from './tree';

export type FilesFamily = 'find_read' | 'count' | 'search' | 'move' | 'write' | 'count_then_write' | 'find_then_move';

export const FILES_SPLIT_FAMILIES: Record<Split, FilesFamily[]> = {
  train: ['find_read', 'count', 'search', 'move', 'write'],
  heldout: ['find_read', 'count', 'search', 'move', 'write'],
  ood: ['count_then_write', 'find_then_move'],
};

/** End state a task requires: a file with this content (trimmed), or no file at this path. */
export type FileExpectation = { path: string; content: string } | { path: string; absent: true };

interface Built {
  instruction: string;
  calls: ToolCall[];
  answer: string | null;
  checklist: ChecklistItem[];
  expect: FileExpectation[];
}

const abs = (rel: string) => `${SANDBOX_ALIAS}/${rel}`;
const base = (rel: string) => rel.slice(rel.lastIndexOf('/') + 1);
const call = (name: string, args: { [k: string]: JsonValue }): ToolCall => ({ name, arguments: args });

function inFolder(tree: SandboxTree, folder: string, ext?: string): SandboxFile[] {
  return tree.files.filter((f) => f.path.startsWith(`${folder}/`) && !f.path.slice(folder.length + 1).includes('/') && (!ext || f.path.endsWith(ext)));
}

function findRead(tree: SandboxTree, rng: Rng): Built {
  const file = rng.pick(tree.files.filter((f) => /\.(txt|md)$/.test(f.path) && !f.path.startsWith('inbox/')));
  const first = file.content.split('\n')[0];
  return {
    instruction: `Find the file named "${base(file.path)}" somewhere under ${SANDBOX_ALIAS} and tell me its first line.`,
    calls: [call('search_files', { path: SANDBOX_ALIAS, pattern: `**/${base(file.path)}` }), call('read_text_file', { path: abs(file.path) })],
    answer: first,
    checklist: [
      { kind: 'call', weight: 1, name: 'read_text_file', args: { path: abs(file.path) } },
      { kind: 'answer', weight: 2, expected: [first], match: 'normalised' },
    ],
    expect: [],
  };
}

function count(tree: SandboxTree, rng: Rng): Built {
  const csvs = inFolder(tree, 'data', '.csv');
  if (rng.next() < 0.5) {
    const n = csvs.length;
    return {
      instruction: `How many .csv files are directly in ${abs('data')}? Answer with a number.`,
      calls: [call('list_directory', { path: abs('data') })],
      answer: String(n),
      checklist: [
        { kind: 'call', weight: 1, name: 'list_directory', args: { path: abs('data') } },
        { kind: 'answer', weight: 2, expected: [n], match: 'numeric' },
      ],
      expect: [],
    };
  }
  const file = rng.pick(csvs);
  const rows = csvRows(file.content);
  return {
    instruction: `How many data rows, not counting the header, does ${abs(file.path)} have? Answer with a number.`,
    calls: [call('read_text_file', { path: abs(file.path) })],
    answer: String(rows),
    checklist: [
      { kind: 'call', weight: 1, name: 'read_text_file', args: { path: abs(file.path) } },
      { kind: 'answer', weight: 2, expected: [rows], match: 'numeric' },
    ],
    expect: [],
  };
}

function search(tree: SandboxTree, rng: Rng): Built {
  const notes = inFolder(tree, 'notes').sort((a, b) => a.path.localeCompare(b.path));
  const file = rng.pick(notes);
  const keyword = /Keyword: (\S+)/.exec(file.content)![1];
  return {
    instruction: `Which file in ${abs('notes')} contains the keyword "${keyword}"? Answer with the file name.`,
    calls: [call('list_directory', { path: abs('notes') }), call('read_multiple_files', { paths: notes.map((n) => abs(n.path)) })],
    answer: base(file.path),
    checklist: [
      { kind: 'call', weight: 1, name: 'list_directory', args: { path: abs('notes') } },
      { kind: 'answer', weight: 2, expected: [base(file.path), abs(file.path)], match: 'normalised' },
    ],
    expect: [],
  };
}

function moveTask(file: SandboxFile, find: boolean): Built {
  const destination = abs(`archive/${base(file.path)}`);
  const move = call('move_file', { source: abs(file.path), destination });
  const lead = find
    ? `Find the file named "${base(file.path)}" somewhere under ${SANDBOX_ALIAS} and move it into ${abs('archive')}.`
    : `Move ${base(file.path)} from ${abs('inbox')} into ${abs('archive')}, keeping its name.`;
  return {
    instruction: lead,
    calls: find ? [call('search_files', { path: SANDBOX_ALIAS, pattern: `**/${base(file.path)}` }), move] : [move],
    answer: null,
    checklist: [{ kind: 'call', weight: 2, name: 'move_file', args: move.arguments }],
    expect: [
      { path: destination, content: file.content },
      { path: abs(file.path), absent: true },
    ],
  };
}

function write(tree: SandboxTree, rng: Rng): Built {
  const topic = base(rng.pick(tree.files).path).replace(/\.\w+$/, '');
  const path = abs(`docs/${topic}_summary.txt`);
  const content = `summary of ${topic}: ${rng.int(2, 9)} items checked`;
  return {
    instruction: `Create the file ${path} containing exactly this text: ${content}`,
    calls: [call('write_file', { path, content })],
    answer: null,
    checklist: [{ kind: 'call', weight: 2, name: 'write_file', args: { path, content } }],
    expect: [{ path, content }],
  };
}

function countThenWrite(tree: SandboxTree, rng: Rng): Built {
  const file = rng.pick(inFolder(tree, 'data', '.csv'));
  const rows = String(csvRows(file.content));
  const target = abs('docs/row_count.txt');
  return {
    instruction: `Count the data rows (not the header) in ${abs(file.path)} and write just that number to ${target}.`,
    calls: [call('read_text_file', { path: abs(file.path) }), call('write_file', { path: target, content: rows })],
    answer: null,
    checklist: [
      { kind: 'call', weight: 1, name: 'read_text_file', args: { path: abs(file.path) } },
      { kind: 'call', weight: 2, name: 'write_file', args: { path: target, content: rows } },
    ],
    expect: [{ path: target, content: rows }],
  };
}

function build(family: FilesFamily, tree: SandboxTree, rng: Rng): Built {
  switch (family) {
    case 'find_read':
      return findRead(tree, rng);
    case 'count':
      return count(tree, rng);
    case 'search':
      return search(tree, rng);
    case 'move':
      return moveTask(rng.pick(inFolder(tree, 'inbox')), false);
    case 'write':
      return write(tree, rng);
    case 'count_then_write':
      return countThenWrite(tree, rng);
    case 'find_then_move':
      return moveTask(rng.pick([...inFolder(tree, 'docs/old'), ...inFolder(tree, 'notes')]), true);
  }
}

export function generateFilesTask(split: Split, index: number, opts: { files: number; envId: string }): Task {
  const families = FILES_SPLIT_FAMILIES[split];
  const family = families[index % families.length];
  const treeSeed = hashString(`files|${split}|${index}|${opts.files}`);
  const tree = generateTree(treeSeed, split, opts.files);
  const built = build(family, tree, new Rng(treeSeed ^ 0x5bd1e995));
  return {
    id: `${opts.envId}-${split}-${index}`,
    env: opts.envId,
    split,
    instruction: built.instruction,
    gold: { calls: built.calls, answer: built.answer },
    checklist: built.checklist,
    maxTurns: 2 * (built.calls.length + 1) + 4,
    meta: { treeSeed, files: opts.files, family, expect: built.expect },
  };
}
