/**
 * The user's 30 phone tools (held by the agent in solo mode), written from their schemas and the
 * tech-support manual. Diagnostics read the phone model (device.ts); fixes change a setting and,
 * where a real phone would re-register (radio toggles, SIM reseat, mode change, reboot), search
 * for the network again.
 */
import { writableRecord, type Db, type JsonObject } from '../tau2/db';
import { ToolError, type ToolImpl } from '../tau2/tools';
import type { JsonValue } from '../types';
import { AWAITING_PAYMENT } from './carrier-tools';
import {
  DEFAULT_APN,
  measureSpeed,
  NETWORK_MODES,
  noDataReason,
  noMmsReason,
  phone,
  searchNetwork,
  situation,
  writablePhone,
  writableSituation,
  type NetworkMode,
} from './device';

const onOff = (b: unknown): string => (b ? 'ON' : 'OFF');

function app(db: Db, name: string): JsonObject {
  const apps = phone(db).app_statuses as JsonObject;
  const a = Object.hasOwn(apps, name) ? (apps[name] as JsonObject) : undefined;
  if (!a) throw new ToolError(`App '${name}' is not installed`);
  return a;
}

/** Flip a boolean phone setting; returns the new value. */
function toggle(db: Db, key: string): boolean {
  const p = writablePhone(db);
  p[key] = !p[key];
  return p[key] as boolean;
}

function statusBar(db: Db): string {
  const p = phone(db);
  const icons: string[] = [];
  if (p.airplane_mode) icons.push('✈️ Airplane Mode');
  const bars: Record<string, string> = { poor: '📶¹ Poor', fair: '📶² Fair', good: '📶³ Good', excellent: '📶⁴ Excellent' };
  const signal = p.network_connection_status === 'connected' ? bars[String(p.network_signal_strength)] : undefined;
  icons.push(signal ?? '📵 No Signal');
  if (signal) icons.push(String(p.network_technology_connected));
  icons.push(p.data_enabled ? '📱 Data Enabled' : '📵 Data Disabled');
  if (p.data_saver_mode) icons.push('🔽 Data Saver');
  if (p.wifi_enabled) icons.push(p.wifi_connected ? '📡 Connected to Wi-Fi' : '📡 Enabled');
  if (p.vpn_connected) icons.push('🔒 VPN Connected');
  icons.push(`🔋 ${p.battery_level}%`);
  return `Status Bar: ${icons.join(' | ')}`;
}

function simStatus(db: Db): string {
  const p = phone(db);
  if (p.sim_card_missing || p.sim_card_status === 'missing') return 'SIM card status: MISSING. No SIM card detected.';
  if (p.sim_card_status === 'locked_pin') return 'SIM card status: LOCKED (PIN required).';
  if (p.sim_card_status === 'locked_puk') return 'SIM card status: LOCKED (PUK required).';
  return 'SIM card status: ACTIVE. Your SIM card is working.';
}

export const PHONE_TOOLS: Record<string, ToolImpl> = {
  check_status_bar: (db) => statusBar(db),
  check_network_status(db) {
    const p = phone(db);
    return {
      airplane_mode: onOff(p.airplane_mode),
      cellular_connection: p.network_connection_status,
      signal_strength: p.network_signal_strength,
      network_type: p.network_technology_connected,
      mobile_data: onOff(p.data_enabled),
      data_roaming: onOff(p.roaming_enabled),
      wifi: onOff(p.wifi_enabled),
      wifi_connected: Boolean(p.wifi_connected),
    };
  },
  check_network_mode_preference: (db) => `Network mode preference: ${phone(db).network_mode_preference}`,
  set_network_mode_preference(db, args) {
    const mode = String(args.mode);
    if (!NETWORK_MODES.includes(mode as NetworkMode)) throw new ToolError(`Invalid network mode '${mode}'; valid modes: ${NETWORK_MODES.join(', ')}`);
    writablePhone(db).network_mode_preference = mode;
    searchNetwork(db);
    return `Network mode preference set to ${mode}. Connected to: ${phone(db).network_technology_connected}`;
  },
  run_speed_test(db) {
    const speed = measureSpeed(db);
    if (!speed) return `Speed test failed: no connection (${noDataReason(db)}).`;
    return `Download speed: ${speed.mbps} Mbps (${speed.description})`;
  },
  toggle_airplane_mode(db) {
    const on = toggle(db, 'airplane_mode');
    if (on) writablePhone(db).wifi_connected = false;
    searchNetwork(db);
    return `Airplane mode is now ${onOff(on)}. ${statusBar(db)}`;
  },
  check_sim_status: (db) => simStatus(db),
  reseat_sim_card(db) {
    const p = writablePhone(db);
    if (p.sim_card_missing || p.sim_card_status === 'missing') {
      p.sim_card_missing = false;
      p.sim_card_status = 'active';
    }
    searchNetwork(db);
    return `SIM card re-seated. ${simStatus(db)}`;
  },
  toggle_data: (db) => `Mobile data is now ${onOff(toggle(db, 'data_enabled'))}.`,
  toggle_roaming: (db) => `Data roaming is now ${onOff(toggle(db, 'roaming_enabled'))}.`,
  check_data_restriction_status: (db) => `Data Saver mode is ${onOff(phone(db).data_saver_mode)}.`,
  toggle_data_saver_mode: (db) => `Data Saver mode is now ${onOff(toggle(db, 'data_saver_mode'))}.`,
  check_apn_settings: (db) => phone(db).active_apn_settings,
  set_apn_settings(db, args) {
    const patch = args.apn_settings as JsonObject;
    if (patch.apn_name !== undefined && patch.apn_name !== 'internet' && patch.apn_name !== 'broken')
      throw new ToolError(`Invalid APN name '${String(patch.apn_name)}'`);
    const p = writablePhone(db);
    p.active_apn_settings = { ...(p.active_apn_settings as JsonObject), ...patch };
    return { message: 'APN settings updated; they take effect for the network at the next reboot.', apn_settings: p.active_apn_settings };
  },
  reset_apn_settings(db) {
    const p = writablePhone(db);
    p.active_apn_settings = { ...(p.active_apn_settings as JsonObject), reset_at_reboot: true };
    return 'APN settings will be reset to the default settings at the next reboot.';
  },
  check_wifi_status(db) {
    const p = phone(db);
    return { wifi_enabled: Boolean(p.wifi_enabled), connected: Boolean(p.wifi_connected), signal_strength: p.wifi_signal_strength };
  },
  // No Wi-Fi network is in reach in these tasks: the radio turns on but finds nothing to join.
  toggle_wifi(db) {
    const on = toggle(db, 'wifi_enabled');
    if (!on) writablePhone(db).wifi_connected = false;
    return `Wi-Fi is now ${onOff(on)}.${on ? ' No known network in range.' : ''}`;
  },
  check_wifi_calling_status(db) {
    const p = phone(db);
    return { wifi_calling: onOff(p.wifi_calling_enabled), mms_over_wifi: onOff(p.wifi_calling_mms_over_wifi) };
  },
  toggle_wifi_calling: (db) => `Wi-Fi Calling is now ${onOff(toggle(db, 'wifi_calling_enabled'))}.`,
  check_vpn_status(db): JsonValue {
    const p = phone(db);
    if (!p.vpn_connected) return { vpn_enabled: Boolean(p.vpn_enabled_setting), connected: false };
    return { vpn_enabled: Boolean(p.vpn_enabled_setting), connected: true, details: p.vpn_details };
  },
  connect_vpn(db) {
    const p = writablePhone(db);
    if (p.vpn_connected) return 'VPN is already connected.';
    Object.assign(p, {
      vpn_enabled_setting: true,
      vpn_connected: true,
      vpn_details: { server_address: 'vpn.example.com', protocol: 'IKEv2', server_performance: 'good' },
    });
    return 'VPN connected.';
  },
  disconnect_vpn(db) {
    const p = writablePhone(db);
    if (!p.vpn_connected) return 'No VPN is connected.';
    Object.assign(p, { vpn_connected: false, vpn_details: null });
    return 'VPN disconnected.';
  },
  check_installed_apps: (db) => Object.keys(phone(db).app_statuses as JsonObject),
  check_app_status: (db, args) => app(db, String(args.app_name)),
  check_app_permissions: (db, args) => app(db, String(args.app_name)).permissions ?? {},
  grant_app_permission(db, args) {
    const name = String(args.app_name);
    const permission = String(args.permission).trim().toLowerCase();
    app(db, name);
    const p = writablePhone(db);
    const target = (p.app_statuses as JsonObject)[name] as JsonObject;
    target.permissions = { ...((target.permissions as JsonObject) ?? {}), [permission]: true };
    return `Permission '${permission}' granted to ${name}.`;
  },
  can_send_mms(db) {
    const why = noMmsReason(db);
    return why ? `Cannot send MMS: ${why}.` : 'MMS can be sent.';
  },
  reboot_device(db) {
    const p = writablePhone(db);
    if ((p.active_apn_settings as JsonObject | null)?.reset_at_reboot) p.active_apn_settings = { ...DEFAULT_APN };
    searchNetwork(db);
    return `Device restarted. ${statusBar(db)}`;
  },
  check_payment_request(db) {
    const pending = (situation(db).payment_requests as JsonObject[]).filter((r) => !r.paid);
    return pending.length ? pending : 'No payment request received.';
  },
  make_payment(db) {
    const s = writableSituation(db);
    const request = (s.payment_requests as JsonObject[]).find((r) => !r.paid);
    if (!request) throw new ToolError('No payment request to pay');
    const bill = writableRecord(db, 'bills', String(request.bill_id));
    if (bill.status !== AWAITING_PAYMENT) throw new ToolError(`Bill ${request.bill_id} is not awaiting payment`);
    bill.status = 'Paid';
    request.paid = true;
    return `Paid ${request.amount_due} for bill ${request.bill_id}.`;
  },
};
