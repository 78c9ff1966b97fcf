// The few YAML files of a verl export (trainer, tool and agent-loop configs) are plain maps, lists and
// scalars, so a small emitter covers them: strings are written as JSON strings (valid YAML, no quoting
// rules to get wrong), and the same value tree can be flattened to dotted keys for the schema check.

export type YamlValue = string | number | boolean | null | YamlValue[] | { [key: string]: YamlValue };

const scalar = (v: string | number | boolean | null): string => (typeof v === 'string' ? JSON.stringify(v) : String(v));

const KEY = /^[A-Za-z_][A-Za-z0-9_.-]*$/;
const key = (k: string) => (KEY.test(k) ? k : JSON.stringify(k));

function lines(value: YamlValue, indent: string): string[] {
  if (Array.isArray(value)) {
    if (value.length === 0) return [`${indent}[]`];
    return value.flatMap((item) => {
      if (item !== null && typeof item === 'object' && !Array.isArray(item) && Object.keys(item).length > 0) {
        const [first, ...rest] = lines(item, `${indent}  `);
        return [`${indent}- ${first.trimStart()}`, ...rest];
      }
      return isBlock(item) ? [`${indent}-`, ...lines(item, `${indent}  `)] : [`${indent}- ${inline(item)}`];
    });
  }
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) => (isBlock(v) ? [`${indent}${key(k)}:`, ...lines(v, `${indent}  `)] : [`${indent}${key(k)}: ${inline(v)}`]));
  }
  return [`${indent}${scalar(value)}`];
}

/** Non-empty maps and lists go on their own lines; everything else fits after the key. */
const isBlock = (v: YamlValue) => v !== null && typeof v === 'object' && (Array.isArray(v) ? v.length > 0 : Object.keys(v).length > 0);
const inline = (v: YamlValue) => (Array.isArray(v) ? '[]' : v !== null && typeof v === 'object' ? '{}' : scalar(v));

export function toYaml(value: YamlValue, header?: string): string {
  const head = header ? header.split('\n').map((l) => `# ${l}`.trimEnd()) : [];
  return `${[...head, ...lines(value, '')].join('\n')}\n`;
}

/** Dotted keys of every leaf (lists and empty maps are leaves), as Hydra overrides name them. */
export function flattenKeys(value: { [key: string]: YamlValue }, prefix = ''): string[] {
  return Object.entries(value).flatMap(([k, v]) => {
    const path = prefix ? `${prefix}.${k}` : k;
    return v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length > 0 ? flattenKeys(v, path) : [path];
  });
}
