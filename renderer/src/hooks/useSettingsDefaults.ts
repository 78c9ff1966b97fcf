import type { SettingsDefaults } from '../../../electron/contract';
import { useCall } from './useCall';

/**
 * The defaults stored from the Settings view (settings.get); undefined while loading, when `enabled`
 * is false, or when the engine cannot say (an error here only means the forms keep their own start).
 */
export function useSettingsDefaults(enabled = true): SettingsDefaults | undefined {
  return useCall('settings.get', enabled ? {} : null).data?.defaults;
}
