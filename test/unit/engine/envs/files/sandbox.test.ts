import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Sandbox } from '../../../../../electron/engine/envs/files/sandbox';
import { csvRows, generateTree } from '../../../../../electron/engine/envs/files/tree';

describe('files sandbox', () => {
  it('writes the tree, maps /sandbox paths both ways, and is gone after remove', async () => {
    const tree = generateTree(5, 'train', 6);
    const box = await Sandbox.create(tree);
    try {
      for (const f of tree.files) expect(readFileSync(join(box.root, f.path), 'utf8')).toBe(f.content);
      expect(existsSync(join(box.root, 'archive'))).toBe(true);
      expect(box.toReal('/sandbox')).toBe(box.root);
      expect(box.toReal('/sandbox/notes/a.txt')).toBe(`${box.root}/notes/a.txt`);
      // Only the alias itself is mapped: look-alike prefixes and other paths pass through untouched.
      expect(box.toReal('/sandboxes/x')).toBe('/sandboxes/x');
      expect(box.toReal('notes/a.txt')).toBe('notes/a.txt');
      expect(box.argsToReal({ paths: ['/sandbox/a', '/etc/x'], opts: { dest: '/sandbox/b' }, n: 3 })).toEqual({
        paths: [`${box.root}/a`, '/etc/x'],
        opts: { dest: `${box.root}/b` },
        n: 3,
      });
      expect(box.toAlias(`moved ${box.root}/a to ${box.root}/b`)).toBe('moved /sandbox/a to /sandbox/b');
      expect(await box.read(`/sandbox/${tree.files[0].path}`)).toBe(tree.files[0].content);
      expect(await box.read('/sandbox/none.txt')).toBeNull();
    } finally {
      await box.remove();
    }
    expect(existsSync(box.root)).toBe(false);
  });
});

describe('files tree', () => {
  it('is the same for the same seed and differs for another', () => {
    expect(generateTree(11, 'heldout', 12)).toEqual(generateTree(11, 'heldout', 12));
    expect(generateTree(12, 'heldout', 12)).not.toEqual(generateTree(11, 'heldout', 12));
  });

  it('fills every folder and gives each note its own keyword', () => {
    const tree = generateTree(3, 'ood', 18);
    for (const folder of ['notes/', 'data/', 'docs/', 'docs/old/', 'inbox/']) expect(tree.files.some((f) => f.path.startsWith(folder))).toBe(true);
    const keywords = tree.files.filter((f) => f.path.startsWith('notes/')).map((f) => /Keyword: (\S+)/.exec(f.content)![1]);
    expect(new Set(keywords).size).toBe(keywords.length);
  });

  it('counts CSV data rows without the header', () => {
    expect(csvRows('a,b\n1,2\n3,4\n')).toBe(2);
    expect(csvRows('a,b\n')).toBe(0);
  });
});
