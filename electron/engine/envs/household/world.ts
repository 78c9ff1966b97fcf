/**
 * The household world state and its seeded generator. A world is plain data so an episode can
 * clone it, and the same (seed, size) always yields the same house.
 */
import { MAX_ROOMS, OBJECT_KINDS, OBJECT_KIND_BY_TYPE, RECEPTACLE_KINDS, ROOM_LAYOUTS, type ObjectKind } from './catalog';
import { Rng } from '../../random';

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

function buildReceptacles(roomCount: number): Receptacle[] {
  const counters = new Map<string, number>();
  const out: Receptacle[] = [];
  for (const layout of ROOM_LAYOUTS.slice(0, roomCount)) {
    for (const [type, count] of Object.entries(layout.receptacles)) {
      const kind = RECEPTACLE_KINDS[type];
      for (let i = 0; i < count; i++) {
        const n = (counters.get(type) ?? 0) + 1;
        counters.set(type, n);
        out.push({ name: `${type} ${n}`, type, room: layout.room, openable: kind.openable, isOpen: false, preposition: kind.preposition });
      }
    }
  }
  return out;
}

/**
 * A house with `size.rooms` rooms and `size.objects` objects of distinct kinds (so "the apple" is
 * always "apple 1"), each placed at random in one of the receptacles it belongs in.
 */
export function generateWorld(seed: number, size: WorldSize): World {
  validateWorldSize(size);
  const rng = new Rng(seed);
  const receptacles = buildReceptacles(size.rooms);
  const kinds = rng.shuffle(placeableKinds(receptacles)).slice(0, size.objects);
  const items: Item[] = kinds.map((kind) => {
    const homes = receptacles.filter((r) => kind.homes.includes(r.type));
    return { name: `${kind.type} 1`, type: kind.type, location: rng.pick(homes).name, clean: false, hot: false, cold: false };
  });
  items.sort((a, b) => a.name.localeCompare(b.name));
  return { rooms: ROOM_LAYOUTS.slice(0, size.rooms).map((l) => l.room), receptacles, items, agentAt: null, agentRoom: 'kitchen', holding: null };
}

export function cloneWorld(world: World): World {
  return {
    rooms: world.rooms.slice(),
    receptacles: world.receptacles.map((r) => ({ ...r })),
    items: world.items.map((i) => ({ ...i })),
    agentAt: world.agentAt,
    agentRoom: world.agentRoom,
    holding: world.holding,
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
