/**
 * tau2-style databases: load once, share read-only, fork cheaply per episode, hash the end state.
 *
 * The loaded DB is deep-frozen and shared by every episode. An episode's fork copies only the
 * top-level tables (maps of records); a tool that writes a record first replaces it with a
 * private deep copy (`writableRecord`). Writing to a shared record throws (frozen, strict mode),
 * so a missed copy is a loud bug, never silent cross-episode leakage.
 *
 * The DB hash is sha256 over canonical JSON (keys sorted at every level). Hashes of frozen
 * sub-objects are cached by identity, so hashing a fork costs only the records it changed.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { JsonValue } from '../types';

export type JsonObject = { [key: string]: JsonValue };
/** A DB: named tables, each either a map of records or any JSON value. */
export type Db = { [table: string]: JsonValue };

export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

const loaded = new Map<string, Db>();

/** Parse a JSON DB file once per process; the result is frozen and must be forked to be used. */
export function loadFrozenDb(file: string): Db {
  let db = loaded.get(file);
  if (!db) {
    db = deepFreeze(JSON.parse(readFileSync(file, 'utf8')) as Db);
    loaded.set(file, db);
  }
  return db;
}

/** A private working copy: fresh top-level and table maps, records still shared until written. */
export function forkDb(base: Db): Db {
  const fork: Db = {};
  for (const [table, value] of Object.entries(base)) {
    fork[table] = value && typeof value === 'object' && !Array.isArray(value) ? { ...(value as JsonObject) } : value;
  }
  return fork;
}

/**
 * The record stored under `key`, or undefined. Only own keys count: ids come from the model,
 * and '__proto__' or 'toString' must read as "not found", never as Object.prototype members.
 */
export function ownRecord(map: JsonValue | undefined, key: string): JsonObject | undefined {
  if (!map || typeof map !== 'object' || Array.isArray(map) || !Object.hasOwn(map, key)) return undefined;
  const v = (map as JsonObject)[key];
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as JsonObject) : undefined;
}

/** The record at db[table][key], made private to this fork so it can be mutated. */
export function writableRecord(db: Db, table: string, key: string): JsonObject {
  const map = db[table] as JsonObject;
  const rec = ownRecord(map, key);
  if (!rec) throw new Error(`no record ${table}/${key}`);
  if (Object.isFrozen(rec)) map[key] = structuredClone(rec);
  return map[key] as JsonObject;
}

/** Canonical JSON: object keys sorted at every level, no whitespace. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as JsonObject)[k])}`).join(',')}}`;
}

const hashCache = new WeakMap<object, string>();

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * Hash of a JSON value. Objects hash as the sha256 of their sorted (key, child hash) pairs, so
 * equal content gives equal hashes whatever the key order; frozen children are hashed once.
 */
export function hashValue(value: unknown): string {
  if (value === null || typeof value !== 'object') return sha256(JSON.stringify(value ?? null));
  const cached = hashCache.get(value);
  if (cached) return cached;
  const parts = Array.isArray(value)
    ? value.map((v) => hashValue(v))
    : Object.keys(value)
        .sort()
        .map((k) => `${JSON.stringify(k)}:${hashValue((value as JsonObject)[k])}`);
  const h = sha256(`${Array.isArray(value) ? '[' : '{'}${parts.join(',')}`);
  if (Object.isFrozen(value)) hashCache.set(value, h);
  return h;
}

export const dbHash = (db: Db): string => hashValue(db);
