import { ContractError } from '../../../electron/contract';

/** What to tell a person about a failed call: the engine's message plus what to do about it. */
export function describeError(error: unknown): { title: string; detail: string } {
  if (error instanceof ContractError) {
    switch (error.code) {
      case 'engine_unavailable':
        return { title: 'The engine is not reachable', detail: `${error.message}. The workbench reconnects on its own; try again in a moment.` };
      case 'not_available':
        return { title: 'Not available yet', detail: error.message };
      case 'conflict':
        return { title: 'Not possible right now', detail: error.message };
      case 'not_found':
        return { title: 'Not found', detail: `${error.message}. It may have been deleted; refresh the list.` };
      case 'invalid_input': {
        const where = error.issues?.map((i) => `${i.path}: ${i.message}`).join('; ');
        return { title: 'The request was refused', detail: where ? `${error.message} (${where})` : error.message };
      }
      case 'unauthorized':
        return { title: 'Not authorised', detail: 'Open the URL printed by `npm start` or `npx envace serve`; it carries the session token.' };
      default:
        return { title: 'The engine reported an error', detail: error.message };
    }
  }
  return { title: 'Something went wrong', detail: error instanceof Error ? error.message : String(error) };
}
