// Timing with device-resident IO, as PyTorch's eager times have their tensors on the GPU: a session
// made with preferredOutputLocation 'device' whose rocm EP uploads the feeds once (uploadTensor); each
// timed run's outputs are disposed unread (a read would move that output to the host for later runs).
// Shared by bench/gpu/models.mjs and scripts/gpu-host/zoo.mjs.

/**
 * Two untimed runs, then `iterations` timed ones (after the first 3, only while before `untilMs`, a
 * performance.now() deadline). `after(onDevice)`, if given, runs with the uploaded feeds still alive.
 * Returns the run times in ms, or undefined when the session has no rocm EP with uploadTensor.
 */
export async function timeDeviceIo(session, feeds, { iterations, untilMs = Infinity, after } = {}) {
  const ep = session.providers.find((p) => p.name === 'rocm');
  if (typeof ep?.uploadTensor !== 'function') return undefined;
  const onDevice = Object.fromEntries(Object.entries(feeds).map(([n, t]) => [n, ep.uploadTensor(t)]));
  const free = (values) => {
    for (const t of Object.values(values)) t.dispose();
  };
  try {
    for (let i = 0; i < 2; i++) free(await session.run(onDevice));
    const times = [];
    for (let i = 0; i < iterations && (i < 3 || performance.now() < untilMs); i++) {
      const t = performance.now();
      const outs = await session.run(onDevice);
      times.push(performance.now() - t);
      free(outs);
    }
    await after?.(onDevice);
    return times;
  } finally {
    free(onDevice);
  }
}
