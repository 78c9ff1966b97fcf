/**
 * The household world state and its seeded generator. A world is plain data so an episode can
 * clone it, and the same (seed, size) always yields the same house.
 *
 * A procedural world (generateWorld's `procedural` option) numbers every receptacle and object
 * afresh ("cabinet 57", "apple 112") from numbers that belong to one split (entityBucket), opens
 * everything and shows every object's place in the start observation. So held-out houses are made
 * of names no training house has, the agent can only copy them from what it sees, and the expert
 * uses nothing the first observation does not show.
 */
import { MAX_ROOMS, OBJECT_KINDS, OBJECT_KIND_BY_TYPE, RECEPTACLE_KINDS, ROOM_LAYOUTS, type ObjectKind } from './catalog';
import { hashString, Rng } from '../../random';
import type { Split } from '../types';

export interface Receptacle {
  name: string;
  type: string;
  room: string;
  openable: boolean;
  isOpen: boolean;
  preposition: 'in' | 'on';
}

export interface Item {
  name: string;
  type: string;
  /** Receptacle name, or null while the agent holds it. */
  location: string | null;
  clean: boolean;
  hot: boolean;
  cold: boolean;
}

export interface World {
  rooms: string[];
  receptacles: Receptacle[];
  items: Item[];
  /** Receptacle the agent stands at, or null before it has gone anywhere. */
  agentAt: string | null;
  agentRoom: string;
  holding: string | null;
  /** Procedural worlds: the start observation lists what is in/on every receptacle. */
  showContents?: boolean;
}

/** How much of a house is in play: the world-size knob. */
export interface WorldSize {
  rooms: number;
  objects: number;
}

export class WorldSizeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WorldSizeError';
  }
}

export function validateWorldSize(size: WorldSize): void {
  if (!Number.isInteger(size.rooms) || size.rooms < 1 || size.rooms > MAX_ROOMS) {
    throw new WorldSizeError(`household world size: rooms must be an integer in [1, ${MAX_ROOMS}], got ${size.rooms}`);
  }
  const maxObjects = placeableKinds(buildReceptacles(size.rooms)).length;
  if (!Number.isInteger(size.objects) || size.objects < 2 || size.objects > maxObjects) {
    throw new WorldSizeError(`household world size: objects must be an integer in [2, ${maxObjects}] for ${size.rooms} room(s), got ${size.objects}`);
  }
}

/** Object kinds with somewhere to live among these receptacles. */
function placeableKinds(receptacles: Receptacle[]): ObjectKind[] {
  const present = new Set(receptacles.map((r) => r.type));
  return OBJECT_KINDS.filter((k) => k.homes.some((h) => present.has(h)));
}

/** The split a receptacle or object name belongs to in procedural worlds: 1 in 8 heldout, 1 in 8 ood, the rest train. */
export function entityBucket(name: string): Split {
  const h = hashString(`household-entity|${name}`) % 8;
  return h === 0 ? 'heldout' : h === 1 ? 'ood' : 'train';
}

/** Numbers procedural names are drawn from: wide enough that each split has dozens per kind. */
const PROCEDURAL_NUMBERS = 199;

/** `type n` names: 1, 2, 3 … in a fixed world; fresh numbers of the split's bucket in a procedural one. */
type Namer = (type: string) => string;

function countingNamer(): Namer {
  const counters = new Map<string, number>();
  return (type) => {
    const n = (counters.get(type) ?? 0) + 1;
    counters.set(type, n);
    return `${type} ${n}`;
  };
}

function bucketNamer(rng: Rng, split: Split): Namer {
  const used = new Set<string>();
  return (type) => {
    const free = Array.from({ length: PROCEDURAL_NUMBERS }, (_, i) => `${type} ${i + 1}`).filter((n) => !used.has(n) && entityBucket(n) === split);
    const name = rng.pick(free);
    used.add(name);
    return name;
  };
}

function buildReceptacles(roomCount: number, name: Namer = countingNamer(), open = false): Receptacle[] {
  const out: Receptacle[] = [];
  for (const layout of ROOM_LAYOUTS.slice(0, roomCount)) {
    for (const [type, count] of Object.entries(layout.receptacles)) {
      const kind = RECEPTACLE_KINDS[type];
      for (let i = 0; i < count; i++) {
        out.push({ name: name(type), type, room: layout.room, openable: kind.openable, isOpen: open && kind.openable, preposition: kind.preposition });
      }
    }
  }
  return out;
}

/**
 * A house with `size.rooms` rooms and `size.objects` objects of distinct kinds (so "the apple" is
 * the only apple: "apple 1", or its fresh procedural name), each placed at random in one of the
 * receptacles it belongs in. `procedural` names everything from `split`'s bucket (see above).
 */
export function generateWorld(seed: number, size: WorldSize, procedural?: { split: Split }): World {
  validateWorldSize(size);
  const rng = new Rng(seed);
  // The names draw from their own stream, so a fixed world's layout is what it always was.
  const name = procedural ? bucketNamer(new Rng(seed ^ 0x2545f491), procedural.split) : countingNamer();
  const receptacles = buildReceptacles(size.rooms, name, procedural !== undefined);
  const kinds = rng.shuffle(placeableKinds(receptacles)).slice(0, size.objects);
  const items: Item[] = kinds.map((kind) => {
    const homes = receptacles.filter((r) => kind.homes.includes(r.type));
    return { name: procedural ? name(kind.type) : `${kind.type} 1`, type: kind.type, location: rng.pick(homes).name, clean: false, hot: false, cold: false };
  });
  items.sort((a, b) => a.name.localeCompare(b.name));
  const world: World = { rooms: ROOM_LAYOUTS.slice(0, size.rooms).map((l) => l.room), receptacles, items, agentAt: null, agentRoom: 'kitchen', holding: null };
  return procedural ? { ...world, showContents: true } : world;
}

export function cloneWorld(world: World): World {
  return {
    rooms: world.rooms.slice(),
    receptacles: world.receptacles.map((r) => ({ ...r })),
    items: world.items.map((i) => ({ ...i })),
    agentAt: world.agentAt,
    agentRoom: world.agentRoom,
    holding: world.holding,
    ...(world.showContents ? { showContents: true } : {}),
  };
}

export function findReceptacle(world: World, name: string): Receptacle | undefined {
  const key = normaliseName(name);
  return world.receptacles.find((r) => r.name === key);
}

export function findItem(world: World, name: string): Item | undefined {
  const key = normaliseName(name);
  return world.items.find((i) => i.name === key);
}

export function itemsIn(world: World, receptacle: string): Item[] {
  return world.items.filter((i) => i.location === receptacle);
}

/** Receptacle types an object of this kind may be put into. */
export function homesOf(itemType: string): string[] {
  return OBJECT_KIND_BY_TYPE[itemType]?.homes ?? [];
}

/** Agents write "Fridge 1", "fridge1" or " fridge  1 "; all mean "fridge 1". */
export function normaliseName(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .replace(/^([a-z]+)\s*(\d+)$/, '$1 $2');
}
