/**
 * The phone model, written from the tech-support manual: how airplane mode, the SIM, APN
 * settings and the carrier's line decide cellular service; how service, the data switch,
 * roaming, the data allowance, data saver, a VPN and the network mode decide mobile data and
 * its speed; and what MMS needs on top.
 *
 * Service is sticky: the phone registers on the network only when it searches (a radio toggle,
 * SIM reseat, mode change or reboot), so a line resumed by the carrier brings service back only
 * after a reboot, as the policy says. Data and MMS are evaluated live from the current state.
 */
import { ownRecord, writableRecord, type Db, type JsonObject } from '../tau2/db';
import { PHONE, SITUATION, USER_TABLE } from './data';

export const NETWORK_MODES = ['4g_5g_preferred', '4g_only', '3g_only', '2g_only'] as const;
export type NetworkMode = (typeof NETWORK_MODES)[number];

/** The technology a phone registers on for each mode preference (our cells offer up to 5G). */
const TECHNOLOGY: Record<NetworkMode, string> = { '4g_5g_preferred': '5G', '4g_only': '4G', '3g_only': '3G', '2g_only': '2G' };
/** Download speed (Mbps) each technology gives on an unrestricted connection. */
const BASE_MBPS: Record<string, number> = { '5G': 200, '4G': 80, '3G': 8, '2G': 0.5 };
/** Data saver throttles to a fifth; a poorly performing VPN to a tenth. */
const DATA_SAVER_FACTOR = 0.2;
const POOR_VPN_FACTOR = 0.1;

export const DEFAULT_APN = { apn_name: 'internet', mms_apn: 'mms', mmsc_url: 'http://mms.carrier.com/mms/wapenc' } as const;

export function phone(db: Db): JsonObject {
  return ownRecord(db[USER_TABLE], PHONE) as JsonObject;
}
export function situation(db: Db): JsonObject {
  return ownRecord(db[USER_TABLE], SITUATION) as JsonObject;
}
export const writablePhone = (db: Db): JsonObject => writableRecord(db, USER_TABLE, PHONE);
export const writableSituation = (db: Db): JsonObject => writableRecord(db, USER_TABLE, SITUATION);

/** The carrier line behind the user's phone number, if any. */
export function userLine(db: Db): JsonObject | undefined {
  const number = situation(db).phone_number;
  return Object.values(db.lines as JsonObject).find((l) => (l as JsonObject).phone_number === number) as JsonObject | undefined;
}

/** Why the phone cannot register on the network, or null when it can. */
export function noServiceReason(db: Db): string | null {
  const p = phone(db);
  if (p.airplane_mode) return 'airplane mode is on';
  if (p.sim_card_missing || p.sim_card_status === 'missing') return 'no SIM card detected';
  if (p.sim_card_status === 'locked_pin' || p.sim_card_status === 'locked_puk') return 'the SIM card is locked';
  if ((p.active_apn_settings as JsonObject | null)?.apn_name !== DEFAULT_APN.apn_name) return 'the APN settings are incorrect';
  const line = userLine(db);
  if (!line) return 'the phone number has no line with the carrier';
  if (line.status !== 'Active') return `the line is ${String(line.status).toLowerCase()}`;
  return null;
}

/** The phone searches for a network and (de)registers according to the current state. */
export function searchNetwork(db: Db): void {
  const p = writablePhone(db);
  const connected = noServiceReason(db) === null;
  p.network_connection_status = connected ? 'connected' : 'no_service';
  p.network_signal_strength = connected ? (situation(db).area_signal_strength ?? 'good') : 'none';
  p.network_technology_connected = connected ? (TECHNOLOGY[p.network_mode_preference as NetworkMode] ?? '4G') : 'none';
}

export function hasService(db: Db): boolean {
  return phone(db).network_connection_status === 'connected';
}

/** The line's data allowance is used up (usage above the plan limit plus refuelled data). */
export function dataExceeded(db: Db): boolean {
  const line = userLine(db);
  if (!line) return true;
  const plan = ownRecord(db.plans, String(line.plan_id));
  const limit = Number(plan?.data_limit_gb ?? 0) + Number(line.data_refueling_gb ?? 0);
  return Number(line.data_used_gb ?? 0) > limit;
}

/** Why mobile data does not work, or null when it does. */
export function noDataReason(db: Db): string | null {
  const p = phone(db);
  if (!hasService(db)) return 'no cellular service';
  if (!p.data_enabled) return 'mobile data is turned off';
  if (situation(db).abroad) {
    if (!p.roaming_enabled) return 'data roaming is turned off on the phone';
    if (!userLine(db)?.roaming_enabled) return 'the line is not enabled for roaming';
  }
  if (dataExceeded(db)) return 'the data allowance is used up';
  return null;
}

export type SpeedDescription = 'very poor' | 'poor' | 'fair' | 'good' | 'excellent';

export function describeSpeed(mbps: number): SpeedDescription {
  if (mbps < 1) return 'very poor';
  if (mbps < 5) return 'poor';
  if (mbps < 25) return 'fair';
  if (mbps < 100) return 'good';
  return 'excellent';
}

/** The speed test's result: null when there is no connection. */
export function measureSpeed(db: Db): { mbps: number; description: SpeedDescription } | null {
  if (noDataReason(db) !== null) return null;
  const p = phone(db);
  let mbps = BASE_MBPS[String(p.network_technology_connected)] ?? 0;
  if (p.data_saver_mode) mbps *= DATA_SAVER_FACTOR;
  if (p.vpn_connected && (p.vpn_details as JsonObject | null)?.server_performance === 'poor') mbps *= POOR_VPN_FACTOR;
  mbps = Math.round(mbps * 100) / 100;
  return { mbps, description: describeSpeed(mbps) };
}

/** Why the messaging app cannot send MMS, or null when it can. */
export function noMmsReason(db: Db): string | null {
  const data = noDataReason(db);
  if (data) return data;
  const p = phone(db);
  if (p.network_technology_connected === '2G') return 'MMS needs at least a 3G connection';
  // MMS over Wi-Fi calling is not supported by the carrier, so routing MMS that way breaks it.
  if (p.wifi_calling_enabled && p.wifi_calling_mms_over_wifi) return 'Wi-Fi Calling is routing MMS over Wi-Fi';
  if (!(p.active_apn_settings as JsonObject | null)?.mmsc_url) return 'the MMSC URL is not set';
  const perms = ((p.app_statuses as JsonObject).messaging as JsonObject | undefined)?.permissions as JsonObject | undefined;
  if (!perms?.sms || !perms?.storage) return 'the messaging app lacks the sms or storage permission';
  return null;
}
