/**
 * The telecom world as one DB: the carrier's tables (db.toml: plans, devices, lines, customers,
 * bills, each keyed by its id so tools can fork and write single records) and the user's side
 * (user_db.toml's phone, plus who and where the user is and the payment requests they received).
 * Both live in one DB because the phone's service depends on the carrier's line, and the solo
 * agent acts on both.
 */
import { readFileSync } from 'node:fs';
import { parse as parseToml } from 'smol-toml';
import { DataMissingError, dataPath } from '../data-dir';
import { deepFreeze, type Db, type JsonObject } from '../tau2/db';
import type { JsonValue } from '../types';

export class TelecomDataError extends Error {
  override name = 'TelecomDataError';
}

/** Carrier tables and the id field each is keyed by. */
export const CARRIER_TABLES = {
  plans: 'plan_id',
  devices: 'device_id',
  lines: 'line_id',
  customers: 'customer_id',
  bills: 'bill_id',
} as const;

/** The user's side: one table holding the phone and the user's situation. */
export const USER_TABLE = 'user';
export const PHONE = 'phone';
export const SITUATION = 'situation';

function readToml(file: string): JsonObject {
  try {
    return parseToml(readFileSync(dataPath('tau2-bench', 'domains', 'telecom', file), 'utf8')) as unknown as JsonObject;
  } catch (err) {
    if (err instanceof DataMissingError) throw err;
    throw new TelecomDataError(`cannot read telecom ${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

function keyed(rows: JsonValue | undefined, idField: string, table: string): JsonObject {
  if (!Array.isArray(rows)) throw new TelecomDataError(`db.toml has no [[${table}]] array`);
  const out: JsonObject = {};
  for (const row of rows) {
    const id = (row as JsonObject)?.[idField];
    if (typeof id !== 'string') throw new TelecomDataError(`a ${table} row has no string ${idField}`);
    out[id] = row;
  }
  return out;
}

/** The untouched telecom world (frozen; fork it per task). */
export function loadTelecomDb(): Db {
  const carrier = readToml('db.toml');
  const user = readToml('user_db.toml');
  const phone = user.device;
  if (!phone || typeof phone !== 'object' || Array.isArray(phone)) throw new TelecomDataError('user_db.toml has no [device] table');
  const db: Db = {};
  for (const [table, idField] of Object.entries(CARRIER_TABLES)) db[table] = keyed(carrier[table], idField, table);
  db[USER_TABLE] = {
    [PHONE]: { ...phone, vpn_details: null },
    [SITUATION]: {
      name: null,
      phone_number: null,
      abroad: false,
      // The signal the surrounding cell offers; the phone shows it only while it has service.
      area_signal_strength: (phone as JsonObject).network_signal_strength ?? 'good',
      payment_requests: [],
    },
  };
  return deepFreeze(db);
}
