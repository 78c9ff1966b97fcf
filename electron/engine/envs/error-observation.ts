/**
 * The one rule for "this observation is the environment refusing a call": it opens with the word
 * "error", in any case ("Error: …" from our envs, "error: …" or "ERROR …" from a user's MCP server,
 * which `mcp/connection.ts` prefixes with "Error: " only when the server's own text does not already
 * say so). A word boundary, so "Errors found: none" or "Errorless" is not a refusal.
 *
 * Rehearsal-memory problems, the safe commit's veto, the real-call error rate and the experiment's
 * error figures all read it, so an imagined and a real observation are judged alike.
 */
export const isErrorObservation = (observation: string): boolean => /^\s*error\b/i.test(observation);
