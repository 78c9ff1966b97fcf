import { ContractError } from '../../contract';
import { renderMemory } from '../memory-text';
import type { HandlerGroup } from './types';

export const memoriesHandlers: HandlerGroup<'memories.list' | 'memories.get' | 'memories.update'> = (s) => ({
  'memories.list': (input) => ({ items: s.store.memories.list(input) }),
  'memories.get': ({ id }) => {
    const memory = s.store.memories.get(id);
    if (!memory) throw new ContractError('not_found', `no memory with id ${id}`);
    return memory;
  },
  'memories.update': ({ id, structured, text }) => {
    const parent = s.store.memories.get(id);
    if (!parent) throw new ContractError('not_found', `no memory with id ${id}`);
    if (structured === undefined && text === undefined) {
      throw new ContractError('invalid_input', 'memories.update needs "structured" or "text" (or both)');
    }
    const nextStructured = structured ?? parent.structured;
    // Structured edits re-render the text unless the editor sent its own text too.
    const nextText = text ?? (structured ? renderMemory(nextStructured) : parent.text);
    return s.store.memories.edit(parent, nextStructured, nextText);
  },
});
