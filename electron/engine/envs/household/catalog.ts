/**
 * What a household can contain: room layouts, receptacle kinds and object kinds with the
 * transformations they allow. Everything else in the household world is generated from these
 * tables and a seed.
 */

export interface ReceptacleKind {
  type: string;
  openable: boolean;
  /** How things relate to it in text: "in the fridge 1" / "on the countertop 1". */
  preposition: 'in' | 'on';
}

export const RECEPTACLE_KINDS: Record<string, ReceptacleKind> = Object.fromEntries(
  (
    [
      ['fridge', true, 'in'],
      ['microwave', true, 'in'],
      ['sinkbasin', false, 'in'],
      ['cabinet', true, 'in'],
      ['drawer', true, 'in'],
      ['countertop', false, 'on'],
      ['diningtable', false, 'on'],
      ['shelf', false, 'on'],
      ['sofa', false, 'on'],
      ['coffeetable', false, 'on'],
      ['sidetable', false, 'on'],
      ['bed', false, 'on'],
      ['desk', false, 'on'],
      ['dresser', false, 'on'],
      ['safe', true, 'in'],
      ['garbagecan', false, 'in'],
      ['bathtubbasin', false, 'in'],
    ] as const
  ).map(([type, openable, preposition]) => [type, { type, openable, preposition }]),
);

/** Rooms in the order a world of N rooms takes them; the kitchen comes first because it holds the appliances. */
export const ROOM_LAYOUTS: ReadonlyArray<{ room: string; receptacles: Record<string, number> }> = [
  {
    room: 'kitchen',
    receptacles: { fridge: 1, microwave: 1, sinkbasin: 1, cabinet: 3, drawer: 2, countertop: 2, diningtable: 1, garbagecan: 1 },
  },
  { room: 'living room', receptacles: { sofa: 1, coffeetable: 1, shelf: 2, sidetable: 1, drawer: 1, cabinet: 1 } },
  { room: 'bedroom', receptacles: { bed: 1, desk: 1, dresser: 1, drawer: 2, shelf: 1, safe: 1, garbagecan: 1 } },
  { room: 'bathroom', receptacles: { sinkbasin: 1, cabinet: 2, countertop: 1, bathtubbasin: 1, garbagecan: 1 } },
  { room: 'office', receptacles: { desk: 1, shelf: 2, drawer: 2, sidetable: 1, safe: 1 } },
];

export const MAX_ROOMS = ROOM_LAYOUTS.length;

export type Transform = 'clean' | 'heat' | 'cool';

/** The receptacle type each transformation needs. */
export const APPLIANCE_OF: Record<Transform, string> = { clean: 'sinkbasin', heat: 'microwave', cool: 'fridge' };

export interface ObjectKind {
  type: string;
  transforms: Transform[];
  /** Receptacle types where this object is found and may be put. */
  homes: string[];
}

const FOOD = ['fridge', 'countertop', 'diningtable', 'cabinet', 'garbagecan'];
const DISHES = ['cabinet', 'countertop', 'diningtable', 'sinkbasin', 'shelf', 'fridge', 'microwave'];
const CUTLERY = ['drawer', 'countertop', 'diningtable', 'sinkbasin'];
const SMALL_THINGS = ['drawer', 'desk', 'sidetable', 'dresser', 'shelf', 'coffeetable', 'safe', 'cabinet'];

export const OBJECT_KINDS: ObjectKind[] = [
  { type: 'apple', transforms: ['clean', 'heat', 'cool'], homes: FOOD },
  { type: 'tomato', transforms: ['clean', 'heat', 'cool'], homes: FOOD },
  { type: 'potato', transforms: ['clean', 'heat', 'cool'], homes: FOOD },
  { type: 'lettuce', transforms: ['clean', 'cool'], homes: FOOD },
  { type: 'egg', transforms: ['heat', 'cool'], homes: FOOD },
  { type: 'bread', transforms: ['heat', 'cool'], homes: FOOD },
  { type: 'mug', transforms: ['clean', 'heat', 'cool'], homes: DISHES },
  { type: 'cup', transforms: ['clean', 'heat', 'cool'], homes: DISHES },
  { type: 'bowl', transforms: ['clean', 'heat', 'cool'], homes: DISHES },
  { type: 'plate', transforms: ['clean', 'heat', 'cool'], homes: DISHES },
  { type: 'pan', transforms: ['clean'], homes: ['cabinet', 'countertop', 'sinkbasin'] },
  { type: 'knife', transforms: ['clean'], homes: CUTLERY },
  { type: 'fork', transforms: ['clean'], homes: CUTLERY },
  { type: 'spoon', transforms: ['clean'], homes: CUTLERY },
  { type: 'spatula', transforms: ['clean'], homes: CUTLERY },
  { type: 'soapbar', transforms: ['clean'], homes: ['sinkbasin', 'cabinet', 'countertop', 'bathtubbasin'] },
  { type: 'cloth', transforms: ['clean'], homes: ['sinkbasin', 'cabinet', 'countertop', 'bathtubbasin', 'drawer'] },
  { type: 'book', transforms: [], homes: ['shelf', 'desk', 'bed', 'sofa', 'coffeetable', 'sidetable', 'dresser'] },
  { type: 'pen', transforms: [], homes: SMALL_THINGS },
  { type: 'pencil', transforms: [], homes: SMALL_THINGS },
  { type: 'keychain', transforms: [], homes: SMALL_THINGS },
  { type: 'creditcard', transforms: [], homes: SMALL_THINGS },
  { type: 'cellphone', transforms: [], homes: [...SMALL_THINGS, 'bed', 'sofa'] },
  { type: 'remotecontrol', transforms: [], homes: ['sofa', 'coffeetable', 'sidetable', 'drawer', 'shelf'] },
  { type: 'watch', transforms: [], homes: SMALL_THINGS },
  { type: 'alarmclock', transforms: [], homes: ['desk', 'sidetable', 'dresser', 'shelf'] },
  { type: 'laptop', transforms: [], homes: ['desk', 'bed', 'sofa', 'coffeetable'] },
  { type: 'pillow', transforms: [], homes: ['bed', 'sofa'] },
  { type: 'vase', transforms: [], homes: ['shelf', 'diningtable', 'coffeetable', 'sidetable', 'dresser'] },
  { type: 'candle', transforms: [], homes: ['shelf', 'diningtable', 'cabinet', 'countertop', 'sidetable'] },
  { type: 'newspaper', transforms: [], homes: ['sofa', 'coffeetable', 'sidetable', 'diningtable', 'garbagecan'] },
  { type: 'cd', transforms: [], homes: ['shelf', 'desk', 'drawer', 'safe'] },
];

export const OBJECT_KIND_BY_TYPE: Record<string, ObjectKind> = Object.fromEntries(OBJECT_KINDS.map((k) => [k.type, k]));
