/** The household tools in OpenAI function form. */
import type { ToolSpec } from '../types';

function stringParams(params: Record<string, string>): ToolSpec['parameters'] {
  return {
    type: 'object',
    properties: Object.fromEntries(Object.entries(params).map(([k, description]) => [k, { type: 'string', description }])),
    required: Object.keys(params),
    additionalProperties: false,
  };
}

export const HOUSEHOLD_TOOLS: ToolSpec[] = [
  { name: 'look', description: 'Describe where you are, what is around you and what you hold.', parameters: stringParams({}) },
  { name: 'inventory', description: 'List what you are holding.', parameters: stringParams({}) },
  {
    name: 'go_to',
    description: 'Walk to a receptacle anywhere in the house, e.g. "fridge 1".',
    parameters: stringParams({ target: 'Receptacle name, e.g. "countertop 2".' }),
  },
  { name: 'open', description: 'Open the receptacle you are standing at.', parameters: stringParams({ target: 'Receptacle name.' }) },
  { name: 'close', description: 'Close the receptacle you are standing at.', parameters: stringParams({ target: 'Receptacle name.' }) },
  {
    name: 'take',
    description: 'Pick up an object from the receptacle you are standing at. You can hold one object at a time.',
    parameters: stringParams({ object: 'Object name, e.g. "apple 1".', source: 'Receptacle it is in or on.' }),
  },
  {
    name: 'put',
    description: 'Put the object you hold in or on the receptacle you are standing at.',
    parameters: stringParams({ object: 'Object name.', target: 'Receptacle name.' }),
  },
  {
    name: 'clean',
    description: 'Clean the object you hold with a sinkbasin you are standing at.',
    parameters: stringParams({ object: 'Object name.', appliance: 'A sinkbasin, e.g. "sinkbasin 1".' }),
  },
  {
    name: 'heat',
    description: 'Heat the object you hold with a microwave you are standing at.',
    parameters: stringParams({ object: 'Object name.', appliance: 'A microwave, e.g. "microwave 1".' }),
  },
  {
    name: 'cool',
    description: 'Cool the object you hold with a fridge you are standing at.',
    parameters: stringParams({ object: 'Object name.', appliance: 'A fridge, e.g. "fridge 1".' }),
  },
  {
    name: 'examine',
    description: 'Look closely at an object (held or in front of you) or at the receptacle you are standing at.',
    parameters: stringParams({ target: 'Object or receptacle name.' }),
  },
];

export const HOUSEHOLD_TOOL_NAMES = new Set(HOUSEHOLD_TOOLS.map((t) => t.name));
