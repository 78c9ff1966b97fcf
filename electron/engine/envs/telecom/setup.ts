/**
 * The functions telecom tasks use to break the world before the agent arrives (their
 * `initialization_actions`): carrier-side (usage, roaming, an overdue-bill suspension) and
 * phone-side (who the user is, where, and what is misconfigured). Not offered to the agent.
 * Phone-side breakages search the network afterwards, as the phone would notice them.
 */
import { writableRecord, type JsonObject } from '../tau2/db';
import { ToolError, type ToolArgs, type ToolImpl } from '../tau2/tools';
import type { JsonValue } from '../types';
import { CARRIER_TOOLS, ownedLine, TODAY } from './carrier-tools';
import { NETWORK_MODES, phone, searchNetwork, writablePhone, writableSituation, type NetworkMode } from './device';

/** A phone-side change followed by a network search. */
function onPhone(change: (p: JsonObject, args: ToolArgs) => void): ToolImpl {
  return (db, args) => {
    change(writablePhone(db), args);
    searchNetwork(db);
    return 'ok';
  };
}

export const SETUP_FUNCTIONS: Record<string, ToolImpl> = {
  // carrier side
  set_data_usage(db, args) {
    const lineId = String(args.line_id);
    ownedLine(db, String(args.customer_id), lineId);
    writableRecord(db, 'lines', lineId).data_used_gb = Number(args.data_used_gb);
    return 'ok';
  },
  enable_roaming: CARRIER_TOOLS.enable_roaming,
  disable_roaming: CARRIER_TOOLS.disable_roaming,
  suspend_line_for_overdue_bill(db, args) {
    const customerId = String(args.customer_id);
    const lineId = String(args.line_id);
    const billId = String(args.new_bill_id);
    const current = ownedLine(db, customerId, lineId);
    const plan = (db.plans as JsonObject)[String(current.plan_id)] as JsonObject;
    (db.bills as JsonObject)[billId] = {
      bill_id: billId,
      customer_id: customerId,
      period_start: '2025-01-01',
      period_end: '2025-01-31',
      issue_date: '2025-01-05',
      total_due: plan.price_per_month,
      due_date: '2025-01-19',
      status: 'Overdue',
      line_items: [
        { description: `${plan.name} - Line ${current.phone_number}`, amount: plan.price_per_month, date: '2025-01-05', item_type: 'Plan Charge' },
      ],
    };
    const cust = writableRecord(db, 'customers', customerId);
    (cust.bill_ids as JsonValue[]).push(billId);
    const line = writableRecord(db, 'lines', lineId);
    line.status = 'Suspended';
    line.suspension_start_date = TODAY;
    // A line whose contract has ended cannot be resumed by the agent (policy).
    if (args.contract_ended) line.contract_end_date = '2025-01-31';
    return 'ok';
  },
  // phone side
  set_user_info(db, args) {
    Object.assign(writableSituation(db), { name: String(args.name), phone_number: String(args.phone_number) });
    searchNetwork(db);
    return 'ok';
  },
  set_user_location(db, args) {
    writableSituation(db).abroad = Boolean(args.abroad);
    return 'ok';
  },
  simulate_network_search(db) {
    searchNetwork(db);
    return 'ok';
  },
  turn_airplane_mode_on: onPhone((p) => {
    p.airplane_mode = true;
    p.wifi_connected = false;
  }),
  turn_data_off: onPhone((p) => void (p.data_enabled = false)),
  turn_roaming_on: onPhone((p) => void (p.roaming_enabled = true)),
  turn_roaming_off: onPhone((p) => void (p.roaming_enabled = false)),
  turn_data_saver_mode_on: onPhone((p) => void (p.data_saver_mode = true)),
  unseat_sim_card: onPhone((p) => {
    p.sim_card_missing = true;
    p.sim_card_status = 'missing';
  }),
  lock_sim_card: onPhone((p, args) => {
    if (args.mode !== 'pin' && args.mode !== 'puk') throw new ToolError(`lock_sim_card mode must be 'pin' or 'puk', got '${String(args.mode)}'`);
    p.sim_card_status = `locked_${args.mode}`;
  }),
  break_apn_settings: onPhone((p) => void (p.active_apn_settings = { ...(p.active_apn_settings as JsonObject), apn_name: 'broken' })),
  break_apn_mms_setting: onPhone((p) => void (p.active_apn_settings = { ...(p.active_apn_settings as JsonObject), mmsc_url: null })),
  break_vpn: onPhone((p) =>
    Object.assign(p, {
      vpn_enabled_setting: true,
      vpn_connected: true,
      vpn_details: { server_address: 'vpn.far-away.example', protocol: 'OpenVPN', server_performance: 'poor' },
    }),
  ),
  set_wifi_calling: onPhone((p, args) =>
    Object.assign(p, { wifi_calling_enabled: Boolean(args.enabled), wifi_calling_mms_over_wifi: Boolean(args.mms_over_wifi) }),
  ),
  set_network_mode_preference: onPhone((p, args) => {
    if (!NETWORK_MODES.includes(args.mode as NetworkMode)) throw new ToolError(`unknown network mode '${String(args.mode)}'`);
    p.network_mode_preference = args.mode;
  }),
  remove_app_permission(db, args) {
    const name = String(args.app_name);
    const apps = phone(db).app_statuses as JsonObject;
    if (!Object.hasOwn(apps, name)) throw new ToolError(`App '${name}' is not installed`);
    const target = (writablePhone(db).app_statuses as JsonObject)[name] as JsonObject;
    target.permissions = { ...(target.permissions as JsonObject), [String(args.permission)]: false };
    return 'ok';
  },
};
