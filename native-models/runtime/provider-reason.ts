// Why an execution provider did not load, in one readable line. Kept apart from session.ts so
// that code which only words a reason (the engine's GPU setup) does not load onnxruntime-node.

const REASON_LIMIT = 300;

/**
 * The runtime's reason a provider did not load, as one readable line. ORT's C++ errors start
 * with the source location, the C++ signature and the failed condition ("webgpu_context.cc:136
 * onnxruntime::webgpu::WebGpuContext::Initialize(…)::<lambda()> adapter_result.status == … was
 * false. Failed to get a WebGPU adapter: …"); a user needs only the sentence after them, and
 * cutting the raw text at a fixed length kept the noise and lost that sentence.
 */
export function providerReason(e: unknown): string {
  const raw = String((e as Error)?.message ?? e);
  const lines = raw
    .split('\n')
    .map((line) => cleanReasonLine(line))
    // Stack frames and blank lines say nothing about why.
    .filter((line) => line !== '' && !/^at\s/.test(line));
  const reason = lines[0] ?? raw.trim();
  return reason.length > REASON_LIMIT ? `${reason.slice(0, REASON_LIMIT - 1)}…` : reason;
}

function cleanReasonLine(line: string): string {
  let text = line.trim().replace(/^Error:\s*/, '');
  // "<file>.cc:<line> <C++ signature> " before the message; the signature ends at its argument
  // list, sometimes followed by "::<lambda()>" or " const".
  const located = /^\S+\.(?:cc|cpp|cxx|h|hpp|c):\d+\s+(.*)$/.exec(text);
  if (located) {
    const rest = located[1];
    const afterSignature = /^.*?\)(?:::<lambda\(\)>)?(?:\s+const)?\s+(.*)$/.exec(rest);
    text = afterSignature ? afterSignature[1] : rest;
  }
  // ORT_ENFORCE: "<condition> was false. <message>"; keep the message when there is one.
  const enforced = text.lastIndexOf(' was false. ');
  if (enforced >= 0 && enforced + 12 < text.length) text = text.slice(enforced + 12);
  return text.replace(/^\[ONNXRuntimeError\]\s*:\s*\d+\s*:\s*\w+\s*:\s*/, '').trim();
}

