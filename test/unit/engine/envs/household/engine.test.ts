import { describe, expect, it } from 'vitest';
import { applyCall } from '../../../../../electron/engine/envs/household/engine';
import { generateWorld, type World } from '../../../../../electron/engine/envs/household/world';

function call(name: string, args: Record<string, string> = {}) {
  return { name, arguments: args };
}

/** A fixed little kitchen so each rule can be checked against a known layout. */
function kitchen(): World {
  const world = generateWorld(7, { rooms: 2, objects: 4 });
  world.items = [
    { name: 'apple 1', type: 'apple', location: 'fridge 1', clean: false, hot: false, cold: false },
    { name: 'book 1', type: 'book', location: 'sofa 1', clean: false, hot: false, cold: false },
    { name: 'mug 1', type: 'mug', location: 'countertop 1', clean: false, hot: false, cold: false },
  ];
  return world;
}

describe('household rules', () => {
  it('a closed receptacle hides its contents until opened', () => {
    const w = kitchen();
    expect(applyCall(w, call('go_to', { target: 'fridge 1' }))).toContain('The fridge 1 is closed.');
    expect(applyCall(w, call('take', { object: 'apple 1', source: 'fridge 1' }))).toBe('Nothing happens: the fridge 1 is closed.');
    expect(applyCall(w, call('open', { target: 'fridge 1' }))).toBe('You open the fridge 1. The fridge 1 is open. In it, you see an apple 1.');
    expect(applyCall(w, call('take', { object: 'apple 1', source: 'fridge 1' }))).toBe('You pick up the apple 1 from the fridge 1.');
    expect(w.holding).toBe('apple 1');
  });

  it('acting on a receptacle needs the agent to stand at it', () => {
    const w = kitchen();
    expect(applyCall(w, call('open', { target: 'fridge 1' }))).toMatch(/must go to the fridge 1/);
    expect(applyCall(w, call('go_to', { target: 'shelf 1' }))).toContain('You leave the kitchen and enter the living room.');
  });

  it('the agent holds one object at a time and can only put what it holds where it fits', () => {
    const w = kitchen();
    applyCall(w, call('go_to', { target: 'countertop 1' }));
    applyCall(w, call('take', { object: 'mug 1', source: 'countertop 1' }));
    applyCall(w, call('go_to', { target: 'sofa 1' }));
    expect(applyCall(w, call('take', { object: 'book 1', source: 'sofa 1' }))).toMatch(/hands are full/);
    expect(applyCall(w, call('put', { object: 'mug 1', target: 'sofa 1' }))).toBe('Nothing happens: the mug 1 does not fit on the sofa 1.');
    expect(applyCall(w, call('put', { object: 'book 1', target: 'sofa 1' }))).toMatch(/not holding "book 1"/);
    applyCall(w, call('go_to', { target: 'countertop 2' }));
    expect(applyCall(w, call('put', { object: 'Mug 1', target: 'countertop2' }))).toBe('You put the mug 1 on the countertop 2.');
    expect(w.items.find((i) => i.name === 'mug 1')!.location).toBe('countertop 2');
  });

  it('clean, heat and cool need the right appliance and change the object state', () => {
    const w = kitchen();
    applyCall(w, call('go_to', { target: 'countertop 1' }));
    applyCall(w, call('take', { object: 'mug 1', source: 'countertop 1' }));
    expect(applyCall(w, call('heat', { object: 'mug 1', appliance: 'countertop 1' }))).toMatch(/only heat things with a microwave/);
    applyCall(w, call('go_to', { target: 'microwave 1' }));
    expect(applyCall(w, call('heat', { object: 'mug 1', appliance: 'microwave 1' }))).toBe('You heat the mug 1 using the microwave 1.');
    applyCall(w, call('go_to', { target: 'fridge 1' }));
    applyCall(w, call('cool', { object: 'mug 1', appliance: 'fridge 1' }));
    applyCall(w, call('go_to', { target: 'sinkbasin 1' }));
    applyCall(w, call('clean', { object: 'mug 1', appliance: 'sinkbasin 1' }));
    expect(applyCall(w, call('examine', { target: 'mug 1' }))).toBe('You are holding the mug 1. It is clean, cold.');
  });

  it('bad calls are error observations, not exceptions', () => {
    const w = kitchen();
    expect(applyCall(w, call('fly', {}))).toMatch(/^Error: unknown tool "fly"/);
    expect(applyCall(w, call('take', { object: 'apple 1' }))).toBe('Error: tool "take" needs a non-empty string argument "source".');
    expect(applyCall(w, { name: 'go_to', arguments: { target: 3 } })).toMatch(/needs a non-empty string argument "target"/);
    expect(applyCall(w, call('go_to', { target: 'moon 1' }))).toBe('Nothing happens: there is no receptacle called "moon 1" in this house.');
  });

  it('look reports the place, the room around it and what is held', () => {
    const w = kitchen();
    applyCall(w, call('go_to', { target: 'countertop 1' }));
    const text = applyCall(w, call('look'));
    expect(text.split('\n')).toEqual([
      'You are at the countertop 1 in the kitchen.',
      'On the countertop 1, you see a mug 1.',
      expect.stringMatching(/^Around you in the kitchen, you see a fridge 1, .*countertop 2/),
      'Other rooms: living room.',
      'You are not holding anything.',
    ]);
  });
});
