/**
 * The seeded sandbox tree for `files`: notes, CSV tables, JSON configs, reports and an inbox,
 * as plain data (relative path → content). Heldout trees draw their file names from words train
 * never sees.
 */
import { hashString, Rng } from '../../random';
import type { Split } from '../types';

export interface SandboxFile {
  /** Relative to the sandbox root, "/"-separated. */
  path: string;
  content: string;
}

export interface SandboxTree {
  dirs: string[];
  files: SandboxFile[];
}

/** The folders every sandbox has, so tasks can name them. */
export const SANDBOX_DIRS = ['notes', 'data', 'docs', 'docs/old', 'inbox', 'archive'];

const WORDS = [
  'alpha', 'amber', 'atlas', 'birch', 'budget', 'canyon', 'cedar', 'comet', 'delta', 'ember', 'falcon', 'fjord',
  'garden', 'glacier', 'harbor', 'hazel', 'indigo', 'island', 'jasper', 'juniper', 'kestrel', 'lagoon', 'lantern',
  'maple', 'meadow', 'nebula', 'north', 'orchid', 'otter', 'pepper', 'prairie', 'quartz', 'raven', 'river', 'saffron',
  'summit', 'tundra', 'umber', 'valley', 'violet', 'willow', 'zephyr',
];

/** File-name words reserved for the heldout split (a fixed quarter of the vocabulary). */
export function isHeldoutWord(word: string): boolean {
  return hashString(`files|${word}`) % 4 === 0;
}

export function wordsFor(split: Split): string[] {
  if (split === 'ood') return WORDS;
  return WORDS.filter((w) => isHeldoutWord(w) === (split === 'heldout'));
}

const PEOPLE = ['Ana', 'Bo', 'Chen', 'Dara', 'Eli', 'Femi', 'Gus', 'Hana', 'Ivo', 'Jun'];
const TOPICS = ['the quarterly plan', 'a supplier visit', 'the garden shed', 'a birthday dinner', 'server upgrades', 'the reading list', 'bike repairs', 'a budget review'];

function csvTable(rng: Rng, rows: number): string {
  const lines = ['date,item,amount'];
  for (let i = 0; i < rows; i++) {
    lines.push(`2024-${String(rng.int(1, 12)).padStart(2, '0')}-${String(rng.int(1, 28)).padStart(2, '0')},${rng.pick(WORDS)},${rng.int(1, 500)}`);
  }
  return `${lines.join('\n')}\n`;
}

function note(rng: Rng, word: string, keyword: string): string {
  const who = rng.pick(PEOPLE);
  return `${word[0].toUpperCase()}${word.slice(1)} notes\nWritten by ${who} about ${rng.pick(TOPICS)}.\nKeyword: ${keyword}\n`;
}

/** Number of data rows of a CSV file (lines after the header). */
export function csvRows(content: string): number {
  return content.trim().split('\n').length - 1;
}

/**
 * A tree of about `fileCount` files. Each file name is `<word>` plus an extension and is unique
 * across the tree (so "the file named x" is never ambiguous); each note carries a unique keyword.
 */
export function generateTree(seed: number, split: Split, fileCount: number): SandboxTree {
  const rng = new Rng(seed);
  const words = rng.shuffle(wordsFor(split));
  const files: SandboxFile[] = [];
  const keywords = rng.shuffle(WORDS.map((w) => `${w}-${rng.int(10, 99)}`));
  const folders = ['notes', 'data', 'data', 'docs', 'docs/old', 'inbox'];
  for (let i = 0; i < fileCount; i++) {
    // Cycle through the folders so every one has files even in small trees; names never repeat.
    const folder = folders[i % folders.length];
    const word = `${words[i % words.length]}${i >= words.length ? `_${Math.floor(i / words.length)}` : ''}`;
    if (folder === 'notes') files.push({ path: `notes/${word}.txt`, content: note(rng, word, keywords[i % keywords.length]) });
    else if (folder === 'data' && i % 2 === 0) files.push({ path: `data/${word}.csv`, content: csvTable(rng, rng.int(2, 12)) });
    else if (folder === 'data') {
      const config = { name: word, owner: rng.pick(PEOPLE), version: rng.int(1, 9), enabled: rng.next() < 0.5 };
      files.push({ path: `data/${word}.json`, content: `${JSON.stringify(config, null, 2)}\n` });
    } else if (folder === 'inbox') files.push({ path: `inbox/${word}.txt`, content: `To file: ${word}\nFrom ${rng.pick(PEOPLE)}.\n` });
    else files.push({ path: `${folder}/${word}.md`, content: `Title: ${word} report\nOwner: ${rng.pick(PEOPLE)}\n\nAbout ${rng.pick(TOPICS)}.\n` });
  }
  return { dirs: SANDBOX_DIRS, files };
}
