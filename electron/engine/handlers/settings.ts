import { folderBytes, freeBytes, readSettings, writeSettings } from '../home/settings';
import type { EngineServices } from '../system/services';
import type { HandlerGroup } from './types';

async function settingsOf(s: EngineServices) {
  const [homeBytes, free] = await Promise.all([folderBytes(s.paths.home), freeBytes(s.paths.home)]);
  return { dataHome: s.paths.home, settingsFile: s.paths.settings, homeBytes, freeBytes: free, access: s.homeAccess(), defaults: readSettings(s.paths.settings) };
}

export const settingsHandlers: HandlerGroup<'settings.get' | 'settings.set'> = (s) => ({
  'settings.get': () => settingsOf(s),
  // A `writes` method: an engine attached read-only (another one owns the home) answers conflict before this runs.
  'settings.set': ({ defaults }) => {
    writeSettings(s.paths.settings, defaults);
    return settingsOf(s);
  },
});
