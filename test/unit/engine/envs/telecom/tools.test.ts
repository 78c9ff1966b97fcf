import { copyFileSync, mkdtempSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { forkDb, type Db, type JsonObject } from '../../../../../electron/engine/envs/tau2/db';
import { executeCall, loadTau2ToolSpecs } from '../../../../../electron/engine/envs/tau2/tools';
import { TELECOM_ASSERTIONS } from '../../../../../electron/engine/envs/telecom/assertions';
import { loadTelecomDb, TelecomDataError } from '../../../../../electron/engine/envs/telecom/data';
import { dataPath } from '../../../../../electron/engine/envs/data-dir';
import { TelecomEnv, TELECOM_TOOLS } from '../../../../../electron/engine/envs/telecom/env';
import { SETUP_FUNCTIONS } from '../../../../../electron/engine/envs/telecom/setup';
import type { JsonValue, ToolSpec } from '../../../../../electron/engine/envs/types';

let specs: ToolSpec[];
let base: Db;
beforeAll(() => {
  specs = loadTau2ToolSpecs('telecom', { userTools: true });
  base = loadTelecomDb();
});

const CUSTOMER = 'C1001';
const LINE = 'L1002';
const NUMBER = '555-123-2002';

/** A fresh world with John Smith's phone on line L1002, after the given setup functions. */
function world(...setup: Array<[string, { [k: string]: JsonValue }?]>): Db {
  const db = forkDb(base);
  SETUP_FUNCTIONS.set_user_info(db, { name: 'John Smith', phone_number: NUMBER });
  for (const [name, args] of setup) SETUP_FUNCTIONS[name](db, args ?? {});
  return db;
}

const call = (db: Db, name: string, args: { [k: string]: JsonValue } = {}) =>
  executeCall(TELECOM_TOOLS, specs, db, { name, arguments: args }).observation;
const holds = (db: Db, name: string, args: { [k: string]: JsonValue }) => TELECOM_ASSERTIONS[name](db, args);
const service = (db: Db, status: string) => holds(db, 'assert_service_status', { expected_status: status });

describe('telecom phone model', () => {
  it('a healthy phone has service, excellent data and MMS', () => {
    const db = world();
    expect(service(db, 'connected')).toBe(true);
    expect(call(db, 'run_speed_test')).toMatch(/\(excellent\)$/);
    expect(call(db, 'can_send_mms')).toBe('MMS can be sent.');
    expect(call(db, 'check_status_bar')).toContain('5G');
  });

  it('airplane mode, a missing SIM and a locked SIM each cut service; only the first two can be undone', () => {
    const airplane = world(['turn_airplane_mode_on']);
    expect(call(airplane, 'check_status_bar')).toContain('✈️ Airplane Mode');
    expect(call(airplane, 'run_speed_test')).toContain('no connection');
    call(airplane, 'toggle_airplane_mode');
    expect(service(airplane, 'connected')).toBe(true);

    const unseated = world(['unseat_sim_card']);
    expect(call(unseated, 'check_sim_status')).toContain('MISSING');
    call(unseated, 'reseat_sim_card');
    expect(service(unseated, 'connected')).toBe(true);

    const locked = world(['lock_sim_card', { mode: 'pin' }]);
    call(locked, 'reseat_sim_card');
    call(locked, 'reboot_device');
    expect(call(locked, 'check_sim_status')).toContain('LOCKED (PIN required)');
    expect(service(locked, 'no_service')).toBe(true);
  });

  it('APN settings reset only at the next reboot', () => {
    const db = world(['break_apn_settings']);
    expect(service(db, 'no_service')).toBe(true);
    call(db, 'reset_apn_settings');
    expect((JSON.parse(call(db, 'check_apn_settings')) as JsonObject).apn_name).toBe('broken');
    call(db, 'reboot_device');
    expect(JSON.parse(call(db, 'check_apn_settings'))).toEqual({
      apn_name: 'internet',
      mms_apn: 'mms',
      mmsc_url: 'http://mms.carrier.com/mms/wapenc',
    });
    expect(service(db, 'connected')).toBe(true);
  });

  it('an overdue-bill suspension: pay, resume, and service returns only after a reboot', () => {
    const db = world(
      ['suspend_line_for_overdue_bill', { customer_id: CUSTOMER, line_id: LINE, new_bill_id: 'B9', contract_ended: false }],
      ['simulate_network_search'],
    );
    expect(service(db, 'no_service')).toBe(true);
    expect(holds(db, 'assert_no_overdue_bill', { overdue_bill_id: 'B9' })).toBe(false);
    expect(call(db, 'make_payment')).toBe('Error: No payment request to pay');
    expect(call(db, 'send_payment_request', { customer_id: CUSTOMER, bill_id: 'B9' })).toContain('Payment request sent');
    expect(call(db, 'send_payment_request', { customer_id: CUSTOMER, bill_id: 'B1002' })).toBe(
      `Error: Customer ${CUSTOMER} already has a bill awaiting payment`,
    );
    expect(holds(db, 'assert_no_overdue_bill', { overdue_bill_id: 'B9' })).toBe(false);
    expect(JSON.parse(call(db, 'check_payment_request'))).toEqual([{ bill_id: 'B9', amount_due: expect.any(Number), paid: false }]);
    call(db, 'make_payment');
    expect(holds(db, 'assert_no_overdue_bill', { overdue_bill_id: 'B9' })).toBe(true);
    expect(call(db, 'resume_line', { customer_id: CUSTOMER, line_id: LINE })).toContain('resumed');
    expect(service(db, 'no_service')).toBe(true);
    call(db, 'reboot_device');
    expect(service(db, 'connected')).toBe(true);
  });

  it('abroad, data needs roaming on both the phone and the line', () => {
    const db = world(['set_user_location', { abroad: true }], ['turn_roaming_off'], ['disable_roaming', { customer_id: CUSTOMER, line_id: LINE }]);
    expect(call(db, 'run_speed_test')).toContain('data roaming is turned off on the phone');
    call(db, 'toggle_roaming');
    expect(call(db, 'run_speed_test')).toContain('the line is not enabled for roaming');
    call(db, 'enable_roaming', { customer_id: CUSTOMER, line_id: LINE });
    expect(holds(db, 'assert_mobile_data_status', { expected_status: true })).toBe(true);
  });

  it('a used-up allowance cuts data until refuelled; the charge lands on the open bill at the plan rate', () => {
    const db = world(['set_data_usage', { customer_id: CUSTOMER, line_id: LINE, data_used_gb: 15.1 }]);
    expect(call(db, 'run_speed_test')).toContain('the data allowance is used up');
    const plan = JSON.parse(
      call(db, 'get_details_by_id', { id: String((JSON.parse(call(db, 'get_details_by_id', { id: LINE })) as JsonObject).plan_id) }),
    ) as JsonObject;
    const before = JSON.parse(call(db, 'get_bills_for_customer', { customer_id: CUSTOMER })) as JsonObject[];
    const draft = before.find((b) => b.status === 'Draft') as JsonObject;
    const out = JSON.parse(call(db, 'refuel_data', { customer_id: CUSTOMER, line_id: LINE, gb_amount: 2 })) as JsonObject;
    expect(out.charge).toBe(2 * Number(plan.data_refueling_price_per_gb));
    const after = JSON.parse(call(db, 'get_details_by_id', { id: String(draft.bill_id) })) as JsonObject;
    expect(after.total_due).toBe(Number(draft.total_due) + Number(out.charge));
    expect(holds(db, 'assert_internet_speed', { expected_speed: 200, expected_desc: 'excellent' })).toBe(true);
    expect(call(db, 'refuel_data', { customer_id: CUSTOMER, line_id: LINE, gb_amount: -1 })).toBe('Error: gb_amount must be positive');
  });

  it('data saver, a poor VPN and old network modes slow data; 2G also blocks MMS', () => {
    const desc = (db: Db) => /\((.+)\)$/.exec(call(db, 'run_speed_test'))?.[1];
    expect(desc(world(['turn_data_saver_mode_on']))).not.toBe('excellent');
    const vpn = world(['break_vpn']);
    expect(desc(vpn)).not.toBe('excellent');
    call(vpn, 'disconnect_vpn');
    expect(desc(vpn)).toBe('excellent');
    const twoG = world(['set_network_mode_preference', { mode: '2g_only' }]);
    expect(desc(twoG)).toBe('very poor');
    expect(call(twoG, 'can_send_mms')).toContain('3G');
    expect(call(twoG, 'set_network_mode_preference', { mode: '5g_only' })).toMatch(/^Error: Invalid network mode '5g_only'/);
  });

  it('MMS also needs the MMSC URL, Wi-Fi Calling not carrying MMS, and the sms and storage permissions', () => {
    const mmsc = world(['break_apn_mms_setting']);
    expect(call(mmsc, 'can_send_mms')).toContain('MMSC URL');
    const wifi = world(['set_wifi_calling', { enabled: true, mms_over_wifi: true }]);
    call(wifi, 'toggle_wifi_calling');
    expect(call(wifi, 'can_send_mms')).toBe('MMS can be sent.');
    const perms = world(['remove_app_permission', { app_name: 'messaging', permission: 'storage' }]);
    expect(holds(perms, 'assert_can_send_mms', { expected_status: true })).toBe(false);
    call(perms, 'grant_app_permission', { app_name: 'messaging', permission: 'storage' });
    expect(holds(perms, 'assert_can_send_mms', { expected_status: true })).toBe(true);
    expect(call(perms, 'grant_app_permission', { app_name: 'camera', permission: 'storage' })).toBe("Error: App 'camera' is not installed");
  });
});

describe('telecom carrier tools', () => {
  it('look up customers by phone (primary or line number), id, and name with date of birth', () => {
    const db = world();
    expect((JSON.parse(call(db, 'get_customer_by_phone', { phone_number: NUMBER })) as JsonObject).customer_id).toBe(CUSTOMER);
    expect((JSON.parse(call(db, 'get_customer_by_phone', { phone_number: '555-123-2001' })) as JsonObject).customer_id).toBe(CUSTOMER);
    const named = JSON.parse(call(db, 'get_customer_by_name', { full_name: 'john smith', dob: '1985-06-15' })) as JsonObject[];
    expect(named.map((c) => c.customer_id)).toEqual([CUSTOMER]);
    expect(JSON.parse(call(db, 'get_customer_by_name', { full_name: 'John Smith', dob: '1985-06-16' }))).toEqual([]);
    expect(call(db, 'get_customer_by_id', { customer_id: '__proto__' })).toBe('Error: Customer with ID __proto__ not found');
    expect(call(db, 'get_details_by_id', { id: 'toString' })).toBe('Error: No customer, line, device, bill or plan with ID toString');
  });

  it('refuse to touch a line the customer does not own, and suspend only active lines', () => {
    const db = world();
    expect(call(db, 'enable_roaming', { customer_id: 'C1002', line_id: LINE })).toBe(`Error: Line ${LINE} does not belong to customer C1002`);
    expect(call(db, 'suspend_line', { customer_id: CUSTOMER, line_id: LINE, reason: 'travel' })).toContain('suspended');
    expect(call(db, 'suspend_line', { customer_id: CUSTOMER, line_id: LINE, reason: 'again' })).toBe(`Error: Line ${LINE} is not active`);
    expect(call(db, 'refuel_data', { customer_id: CUSTOMER, line_id: LINE, gb_amount: 1 })).toBe(`Error: Line ${LINE} is not active`);
    const bills = JSON.parse(call(db, 'get_bills_for_customer', { customer_id: CUSTOMER, limit: 2 })) as JsonObject[];
    expect(bills).toHaveLength(2);
    expect(String(bills[0].issue_date) >= String(bills[1].issue_date)).toBe(true);
  });

  it('writes stay in the fork: the loaded world is untouched', () => {
    const db = world();
    call(db, 'disable_roaming', { customer_id: CUSTOMER, line_id: LINE });
    expect((JSON.parse(call(world(), 'get_details_by_id', { id: LINE })) as JsonObject).roaming_enabled).toBe(true);
  });
});

describe('telecom data loading', () => {
  const saved = process.env.ENVACE_DATA_DIR;
  afterEach(() => {
    if (saved === undefined) delete process.env.ENVACE_DATA_DIR;
    else process.env.ENVACE_DATA_DIR = saved;
  });

  it('a malformed TOML file is a TelecomDataError naming the file', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'telecom-'));
    mkdirSync(path.join(dir, 'tau2-bench', 'domains', 'telecom'), { recursive: true });
    writeFileSync(path.join(dir, 'tau2-bench', 'domains', 'telecom', 'db.toml'), '[[plans]\nplan_id = ');
    process.env.ENVACE_DATA_DIR = dir;
    expect(() => loadTelecomDb()).toThrow(TelecomDataError);
    expect(() => loadTelecomDb()).toThrow(/db\.toml/);
  });

  it('a task using an unknown setup function or env assertion is a TelecomDataError naming the task', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'telecom-'));
    const domain = path.join(dir, 'tau2-bench', 'domains', 'telecom');
    mkdirSync(domain, { recursive: true });
    copyFileSync(dataPath('tau2-bench', 'tool_schemas.generated.json'), path.join(dir, 'tau2-bench', 'tool_schemas.generated.json'));
    for (const f of ['db.toml', 'user_db.toml']) copyFileSync(dataPath('tau2-bench', 'domains', 'telecom', f), path.join(domain, f));
    const [task] = JSON.parse(readFileSync(dataPath('tau2-bench', 'domains', 'telecom', 'tasks_base_release.json'), 'utf8')) as Array<{
      id: string;
      [k: string]: unknown;
    }>;
    writeFileSync(path.join(domain, 'split_tasks.json'), JSON.stringify({ train: [task.id], test: [] }));
    const write = (t: unknown) => writeFileSync(path.join(domain, 'tasks_base_release.json'), JSON.stringify([t]));
    process.env.ENVACE_DATA_DIR = dir;
    write(task);
    expect(new TelecomEnv().tasks('train').map((t) => t.id)).toEqual([task.id]);
    write({ ...task, initial_state: { initialization_actions: [{ env_type: 'user', func_name: 'break_everything', arguments: {} }] } });
    expect(() => new TelecomEnv()).toThrow(/uses unknown setup function 'break_everything'/);
    write({ ...task, evaluation_criteria: { env_assertions: [{ env_type: 'user', func_name: 'assert_happy', arguments: {} }] } });
    expect(() => new TelecomEnv()).toThrow(TelecomDataError);
  });
});
