// What a set of tensors must look like (names, shapes, dtypes), and the check that says how it does not.

import { type Dtype, type HostTensor, formatShape } from './dtype';

export interface TensorSpec {
  name: string;
  shape: number[];
  /** Omitted: any dtype is accepted. */
  dtype?: Dtype;
}

export interface SpecProblem {
  kind: 'missing' | 'unexpected' | 'shape' | 'dtype';
  name: string;
  message: string;
}

const sameShape = (a: readonly number[], b: readonly number[]) => a.length === b.length && a.every((d, i) => d === b[i]);

/** Every difference between `tensors` and `expected`, in a stable order (by name). Empty when they agree. */
export function checkTensorsAgainstSpec(tensors: ReadonlyMap<string, Pick<HostTensor, 'dtype' | 'shape'>>, expected: readonly TensorSpec[]): SpecProblem[] {
  const problems: SpecProblem[] = [];
  const wanted = new Map(expected.map((s) => [s.name, s]));
  for (const spec of [...wanted.values()].sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const t = tensors.get(spec.name);
    if (!t) {
      problems.push({ kind: 'missing', name: spec.name, message: `tensor "${spec.name}" ${formatShape(spec.shape)} is missing` });
    } else if (!sameShape(t.shape, spec.shape)) {
      problems.push({
        kind: 'shape',
        name: spec.name,
        message: `tensor "${spec.name}" has shape ${formatShape(t.shape)} but ${formatShape(spec.shape)} is expected`,
      });
    } else if (spec.dtype && t.dtype !== spec.dtype) {
      problems.push({ kind: 'dtype', name: spec.name, message: `tensor "${spec.name}" is ${t.dtype} but ${spec.dtype} is expected` });
    }
  }
  for (const name of [...tensors.keys()].sort()) {
    if (!wanted.has(name)) problems.push({ kind: 'unexpected', name, message: `tensor "${name}" is not expected` });
  }
  return problems;
}

/** One message for a list of problems: the first few in full, then a count. */
export function describeProblems(problems: readonly SpecProblem[], limit = 5): string {
  const shown = problems.slice(0, limit).map((p) => p.message);
  if (problems.length > limit) shown.push(`and ${problems.length - limit} more`);
  return shown.join('; ');
}
