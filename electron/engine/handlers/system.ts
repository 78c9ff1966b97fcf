import { systemInfo } from '../system';
import type { HandlerGroup } from './types';

export const systemHandlers: HandlerGroup<'system.info'> = (s) => ({
  'system.info': (_input, ctx) => systemInfo({ compute: s.compute, db: s.store.db, dataHome: s.paths.home, dataHomeAccess: s.homeAccess(), transport: ctx.transport }),
});
