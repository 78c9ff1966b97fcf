/**
 * Error probes (`sft.errorProbes`): a share of the expert demonstrations also shows one wrong call
 * and what the real environment answered to it.
 *
 * Why: an expert never fails, so a world model trained on expert demonstrations alone imagines
 * every call succeeding — the full experiment measured imagined observations saying "Error" 0 % of
 * the time against 47 % in the real environment on the same actions (the "convenient world").
 * A probe is the expert's first call with one digit of one argument changed, the commonest slip of
 * a small model copying an id. It is sent to a fresh episode of the same task, so the
 * demonstration's own episode never sees it, and kept only when the answer is an error (an error
 * changes nothing, so the expert's run that follows is still what the environment would do).
 * In the demonstration the wrong call is context, never an act target; the error trains the
 * world model (env tokens), and the expert's right call after it shows the act role how to recover.
 */
import type { Action, ToolCall } from '../envs/types';
import type { Rng } from '../random';

/** The first call of `action` with one digit of one string argument changed; null when no argument has a digit. */
export function probeCall(action: Action, rng: Rng): Action | null {
  if (action.kind !== 'calls' || action.calls.length === 0) return null;
  const call: ToolCall = action.calls[0];
  const withDigits = Object.entries(call.arguments).filter((e): e is [string, string] => typeof e[1] === 'string' && /\d/.test(e[1]));
  if (withDigits.length === 0) return null;
  const [key, value] = rng.pick(withDigits);
  const positions = [...value].flatMap((ch, i) => (ch >= '0' && ch <= '9' ? [i] : []));
  const at = rng.pick(positions);
  // Another digit, never the same one: 1–9 steps round the ten.
  const digit = String((Number(value[at]) + rng.int(1, 9)) % 10);
  const wrong = value.slice(0, at) + digit + value.slice(at + 1);
  return { kind: 'calls', calls: [{ name: call.name, arguments: { ...call.arguments, [key]: wrong } }] };
}
