import { utilityProcess, type UtilityProcess } from 'electron';
import { EngineLink, type FromEngine } from './engine-link';

export interface SupervisorOptions {
  entry: string;
  home: string;
  onEvent(event: string, payload: unknown): void;
  onStatus(state: 'ready' | 'restarting' | 'down', message: string): void;
}

const MAX_RESTARTS_PER_MINUTE = 5;

/**
 * Runs the engine in a utilityProcess (its own V8 heap: an ORT crash cannot take the
 * window down) and restarts it when it dies, telling the UI each time.
 */
export class EngineSupervisor {
  readonly link: EngineLink;
  private child: UtilityProcess | null = null;
  private restarts: number[] = [];
  private stopping = false;

  constructor(private readonly options: SupervisorOptions) {
    this.link = new EngineLink(() => {
      throw new Error('engine not started');
    });
  }

  start(): void {
    const child = utilityProcess.fork(this.options.entry, ['--home', this.options.home], { serviceName: 'EnvACE engine', stdio: 'inherit' });
    this.child = child;
    this.link.reset((message) => child.postMessage(message), 'the engine restarted; retry the request');
    child.on('message', (message: FromEngine) => {
      if (message.type === 'ready') this.options.onStatus('ready', 'engine ready');
      else this.link.receive(message, this.options.onEvent);
    });
    child.on('exit', (code) => {
      if (this.stopping) return;
      this.link.reset(() => {
        throw new Error('engine restarting');
      }, `the engine stopped (exit code ${code})`);
      const now = Date.now();
      this.restarts = [...this.restarts.filter((t) => now - t < 60_000), now];
      if (this.restarts.length > MAX_RESTARTS_PER_MINUTE) {
        this.options.onStatus('down', `the engine crashed ${this.restarts.length} times in a minute; restart the app (logs in the data home)`);
        return;
      }
      this.options.onStatus('restarting', `the engine stopped (exit code ${code}); restarting — active runs are marked interrupted and can be resumed`);
      setTimeout(() => this.start(), 500);
    });
  }

  stop(): void {
    this.stopping = true;
    this.child?.kill();
  }
}
