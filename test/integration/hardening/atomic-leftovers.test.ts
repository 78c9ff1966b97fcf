import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { recoverAtomicLeftovers, writeDirAtomic } from '../../../native-models/io/atomic';
import { tempHome } from '../../helpers/engine';

const root = tempHome('envace-leftovers-');
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('recoverAtomicLeftovers', () => {
  it('clears what crashed writes left, finishes an interrupted swap, and spares a write in progress', async () => {
    const parent = path.join(root, 'exports');
    fs.mkdirSync(path.join(parent, 'killed-in-fill.tmp-0a1b'), { recursive: true });
    fs.mkdirSync(path.join(parent, 'killed-in-swap.ready-0c1d'));
    fs.writeFileSync(path.join(parent, 'killed-in-swap.ready-0c1d', 'model.safetensors'), 'complete');
    fs.mkdirSync(path.join(parent, 'user.tmp-notes')); // not a name the atomic writer makes

    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const live = writeDirAtomic(path.join(parent, 'in-progress'), async (tmp) => {
      fs.writeFileSync(path.join(tmp, 'a'), 'x');
      await gate;
      fs.writeFileSync(path.join(tmp, 'b'), 'y');
    });
    recoverAtomicLeftovers(parent);
    release();
    await live;

    expect(fs.readdirSync(parent).sort()).toEqual(['in-progress', 'killed-in-swap', 'user.tmp-notes']);
    expect(fs.readdirSync(path.join(parent, 'in-progress')).sort()).toEqual(['a', 'b']);
    expect(fs.readFileSync(path.join(parent, 'killed-in-swap', 'model.safetensors'), 'utf8')).toBe('complete');
  });
});
