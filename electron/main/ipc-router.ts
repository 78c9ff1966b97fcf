import type { IpcMain, IpcMainInvokeEvent } from 'electron';
import { IPC_EVENT_CHANNEL, IPC_INVOKE_CHANNEL, type Result } from '../contract';
import { isTrustedUrl } from './window';

export const INVOKE_CHANNEL = IPC_INVOKE_CHANNEL;
export const EVENT_CHANNEL = IPC_EVENT_CHANNEL;

export type ForwardToEngine = (method: unknown, input: unknown) => Promise<Result<unknown>>;

/**
 * The one door between renderer and engine. It checks that the sender is our own top-level
 * frame, then forwards; the engine validates the payload against the contract.
 */
export async function handleInvoke(event: Pick<IpcMainInvokeEvent, 'senderFrame'>, method: unknown, input: unknown, forward: ForwardToEngine): Promise<Result<unknown>> {
  const url = event.senderFrame?.url ?? '';
  if (!isTrustedUrl(url) || event.senderFrame?.parent) {
    return { ok: false, error: { code: 'unauthorized', message: 'IPC from an untrusted frame was refused' } };
  }
  return forward(method, input);
}

export function registerIpcRouter(ipcMain: IpcMain, forward: ForwardToEngine): () => void {
  ipcMain.handle(INVOKE_CHANNEL, (event, method: unknown, input: unknown) => handleInvoke(event, method, input, forward));
  return () => ipcMain.removeHandler(INVOKE_CHANNEL);
}
