// Entry of the engine when Electron runs it as a utilityProcess: requests arrive on
// process.parentPort, results and events go back the same way. No `electron` import here.
import { createEngine } from './host';
import { logUnhandledRejections } from './system/unhandled-rejections';

interface ParentPort {
  on(event: 'message', listener: (message: { data: unknown }) => void): void;
  postMessage(message: unknown): void;
}

const port = (process as unknown as { parentPort?: ParentPort }).parentPort;
if (!port) throw new Error('process-entry runs under Electron utilityProcess.fork');
logUnhandledRejections('engine');

const homeFlag = process.argv.indexOf('--home');
const engine = createEngine({ home: homeFlag >= 0 ? process.argv[homeFlag + 1] : undefined });
engine.subscribe((event, payload) => port.postMessage({ type: 'event', event, payload }));

port.on('message', async ({ data }) => {
  const message = data as { type: string; id: number; method: unknown; input: unknown };
  if (message?.type !== 'request') return;
  const result = await engine.dispatch(message.method, message.input, { transport: 'ipc' });
  port.postMessage({ type: 'response', id: message.id, result });
});
port.postMessage({ type: 'ready' });
